package tokens_test

import (
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/tokens"
)

// TestKnownCounts checks each encoding against counts OpenAI's tiktoken gives
// (its cookbook's "tiktoken is great!": 6 tokens in both encodings) and a few
// texts whose split is plain.
func TestKnownCounts(t *testing.T) {
	for _, c := range []struct {
		enc  tokens.Encoding
		text string
		want int
	}{
		{tokens.Cl100k, "tiktoken is great!", 6},
		{tokens.O200k, "tiktoken is great!", 6},
		{tokens.Cl100k, "hello world", 2},
		{tokens.O200k, "hello world", 2},
		{tokens.O200k, "", 0},
		{tokens.Cl100k, " ", 1},
	} {
		got, err := tokens.Count(c.text, c.enc)
		if err != nil || got != c.want {
			t.Errorf("Count(%q, %s) = %d, %v; want %d", c.text, c.enc, got, err, c.want)
		}
	}
	if _, err := tokens.Count("x", "p50k_base"); err == nil {
		t.Error("an unknown encoding was counted")
	}
	if got := tokens.Of("tiktoken is great!"); got != 6 {
		t.Errorf("Of = %d, want 6 (o200k_base)", got)
	}
}

// TestMemo: a memo's counts are the tokenizer's, the same text counted again
// gives the same count.
func TestMemo(t *testing.T) {
	m := tokens.NewMemo()
	for range 2 {
		if got := m.Of([]byte("tiktoken is great!")); got != 6 {
			t.Errorf("Memo.Of = %d, want 6", got)
		}
	}
	if got := m.Of(nil); got != 0 {
		t.Errorf("Memo.Of(nil) = %d, want 0", got)
	}
}

// The same bytes count as text (Of) and as JSON (OfJSON, compacted) apart,
// whichever a memo is asked first: the sessions of a file judged apart ask at
// once, and a count must not depend on which came first.
func TestMemoCountsTextAndJSONApart(t *testing.T) {
	raw := []byte(`{"name": "t",      "description": "a    b    c    d    e    f"}`)
	text, compacted := tokens.Of(string(raw)), tokens.Of(`{"name":"t","description":"a    b    c    d    e    f"}`)
	if text == compacted {
		t.Fatalf("the text and its compacted form both count %d tokens: the case proves nothing", text)
	}
	for _, jsonFirst := range []bool{false, true} {
		m := tokens.NewMemo()
		if jsonFirst {
			m.OfJSON(raw)
		}
		if got := m.Of(raw); got != text {
			t.Errorf("jsonFirst=%v: Of = %d, want %d", jsonFirst, got, text)
		}
		if got := m.OfJSON(raw); got != compacted {
			t.Errorf("jsonFirst=%v: OfJSON = %d, want %d", jsonFirst, got, compacted)
		}
	}
}
