package redact

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// TestSealedSetReadsAlike: a sealed set hides what the same set unsealed hides,
// in every frame of every fixture, whole and cut (Replace, ReplaceCut, Frame),
// and in the texts made to reach the walk's corners (Hide and HideCut too: they
// find the values where Replace does, and mask the secrets, the slow part, alike).
func TestSealedSetReadsAlike(t *testing.T) {
	texts := 0
	compare := func(where string, raws [][]byte, open, sealed *Set, hide bool) {
		t.Helper()
		if open.Len() != sealed.Len() {
			t.Errorf("%s: Len %d sealed, %d not", where, sealed.Len(), open.Len())
		}
		for _, raw := range raws {
			for _, n := range fewCuts(len(raw)) {
				text := string(raw[:n])
				texts++
				reads := map[string]func(*Set, string) string{
					"Replace": (*Set).Replace, "ReplaceCut": (*Set).ReplaceCut,
					"Frame": func(s *Set, text string) string { return string(Frame([]byte(text), s)) },
				}
				if hide {
					reads["Hide"], reads["HideCut"] = (*Set).Hide, (*Set).HideCut
				}
				for name, read := range reads {
					if got, want := read(sealed, text), read(open, text); got != want {
						t.Errorf("%s: %s of %q\n sealed %q\nunsealed %q", where, name, text, got, want)
					}
				}
			}
		}
	}
	files := eachCapture(t, func(path string, rd *frame.Reader) {
		open, sealed := NewSet(), NewSet()
		sameSeed(open, sealed)
		var raws [][]byte
		eachFrame(rd, func(rec *frame.Record) {
			CollectFrame(rec.Frame, open)
			CollectFrame(rec.Frame, sealed)
			raws = append(raws, bytes.Clone(rec.Frame.Raw))
		})
		sealed.Seal()
		if sealed.Len() > 0 && (sealed.sealed == nil || sealed.values != nil) {
			t.Fatalf("%s: Seal left the set in maps", path)
		}
		compare(path, raws, open, sealed, false)
	})
	if files < 100 || texts < 10000 {
		t.Fatalf("only %d texts of %d captures compared", texts, files)
	}
	// The corners, and a set that left a long value out (its heads) and one
	// that is full.
	open, sealed := NewSet(), NewSet()
	sameSeed(open, sealed)
	var raws [][]byte
	for _, text := range referenceTexts() {
		Collect([]byte(text), open)
		Collect([]byte(text), sealed)
		raws = append(raws, []byte(text))
	}
	long := "ledger " + strings.Repeat("page of the ledger ", MaxValue/19+1)
	open.Add(long)
	sealed.Add(long)
	raws = append(raws, []byte("it said: "+long[:40]), []byte(long[:MaxValue+1]))
	sealed.Seal()
	if !sealed.Long {
		t.Fatal("the long value left out made the set no Long")
	}
	compare("the corners", raws, open, sealed, true)
	full, fullSealed := NewSet(), NewSet()
	sameSeed(full, fullSealed)
	for i := range MaxValues + 10 {
		full.Add("value-" + itoa(i))
		fullSealed.Add("value-" + itoa(i))
	}
	fullSealed.Seal()
	if !fullSealed.Full || !fullSealed.saturated() {
		t.Fatal("a full set sealed is not saturated")
	}
	compare("a full set", [][]byte{[]byte("value-17 and value-49999 but not value-50009")}, full, fullSealed, true)
}

// fewCuts are the lengths a text of n bytes is read at: whole, and cut at eight
// places spread over it.
func fewCuts(n int) []int {
	out := []int{n}
	for i := 1; i <= 8 && n >= 8; i++ {
		out = append(out, n*i/9)
	}
	return out
}

// TestSealedSetTakesMore: a value added to a sealed set is added as to a set
// never sealed.
func TestSealedSetTakesMore(t *testing.T) {
	before := []string{"Jane Roe owes 4000", "acct-7781", "password=hunter2 here", "ledger " + strings.Repeat("page ", MaxValue/5)}
	after := []string{"acct-7781", "Nordlys AS", "Jane Roe"}
	open, sealed := NewSet(), NewSet()
	sameSeed(open, sealed)
	for _, v := range before {
		open.Add(v)
		sealed.Add(v)
	}
	sealed.Seal()
	sealed.Seal() // twice: no change
	for _, v := range after {
		open.Add(v)
		sealed.Add(v)
	}
	if sealed.sealed != nil {
		t.Fatal("a set added to stayed sealed")
	}
	// Both through the tables and back, where the lengths come out sorted.
	open.Seal()
	open.unseal()
	sealed.Seal()
	sealed.unseal()
	if d := setDiff(sealed, open); d != "" {
		t.Errorf("sealed, added to, sealed again: %s", d)
	}
	text := "Jane Roe paid Nordlys AS from acct-7781: ledger page page"
	if got, want := sealed.ReplaceCut(text), "[redacted, 8 chars] paid [redacted, 10 chars] from [redacted, 9 chars]: [redacted, 16+ chars, cut]"; got != want {
		t.Errorf("ReplaceCut = %q, want %q", got, want)
	}
}
