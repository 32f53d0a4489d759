package session_test

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// TestSharedDeclarations: sessions that declare the same capability objects read
// them once (the tracker keeps them read), yet every contract keeps its own copy
// of its bytes and answers about its own declaration, past the number of
// declarations the tracker keeps; a modern request's contract answers about the
// latest server/discover result.
func TestSharedDeclarations(t *testing.T) {
	clientCaps := func(i int) string {
		if i%2 == 0 {
			return `{"roots":{"listChanged":true}}`
		}
		return fmt.Sprintf(`{"sampling":{},"experimental":{"n":%d}}`, i)
	}
	serverCaps := func(i int) string {
		if i%3 == 0 {
			return `{"tools":{"listChanged":true},"logging":{}}`
		}
		return fmt.Sprintf(`{"resources":{"subscribe":true},"experimental":{"n":%d}}`, i)
	}
	const sessions = 150 // more distinct declarations than the tracker keeps
	var text string
	for i := range sessions {
		id := fmt.Sprintf(`"session_id":"S%d"`, i)
		text += env("c->s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":`+clientCaps(i)+`,"clientInfo":{"name":"c","version":"1"}}}`, id) + "\n"
		text += env("s->c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":`+serverCaps(i)+`,"serverInfo":{"name":"s","version":"1"}}}`, id) + "\n"
	}
	tr := run(t, "shared.jsonl", text, frame.Options{})
	if len(tr.started) != sessions {
		t.Fatalf("%d sessions, want %d", len(tr.started), sessions)
	}
	seen := map[*byte]bool{}
	for i, s := range tr.started {
		c := s.Legacy
		if c == nil || string(c.ClientCaps) != clientCaps(i) || string(c.ServerCaps) != serverCaps(i) {
			t.Fatalf("session %d: contract %+v", i, c)
		}
		for _, b := range [][]byte{c.ClientCaps, c.ServerCaps} {
			if p := unsafe.SliceData(b); seen[p] {
				t.Fatalf("session %d: a capability object shares its bytes with another contract", i)
			} else {
				seen[p] = true
			}
		}
		for _, q := range []struct {
			side    spec.Side
			path    string
			boolean bool
			want    bool
		}{
			{spec.Client, "roots.listChanged", true, i%2 == 0},
			{spec.Client, "sampling", false, i%2 != 0},
			{spec.Server, "tools.listChanged", true, i%3 == 0},
			{spec.Server, "logging", false, i%3 == 0},
			{spec.Server, "resources.subscribe", true, i%3 != 0},
		} {
			for range 2 { // read, then remembered
				if got, ok := c.Declares(q.side, q.path, q.boolean); got != q.want || !ok {
					t.Fatalf("session %d: Declares(%s, %q) = %v, %v; want %v", i, q.side, q.path, got, ok, q.want)
				}
			}
		}
		want := fmt.Sprintf("experimental: {\"n\":%d}", i)
		if i%2 == 0 {
			want = "no experimental"
		}
		if got := c.CapabilitySummary(spec.Client, "experimental"); got != want {
			t.Fatalf("session %d: CapabilitySummary = %q, want %q", i, got, want)
		}
	}

	// A modern session: each request's contract has the latest discover result.
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}`
	modern := lines(
		env("c->s", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`),
		env("s->c", `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}`),
		env("c->s", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+meta+`}}`),
		env("c->s", `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{`+meta+`}}`),
		env("s->c", `{"jsonrpc":"2.0","id":3,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"prompts":{}}}}`),
		env("c->s", `{"jsonrpc":"2.0","id":4,"method":"prompts/list","params":{`+meta+`}}`),
	)
	mt := run(t, "modern.jsonl", modern, frame.Options{})
	for _, q := range []struct {
		line          int
		tools, prompt bool
	}{{3, true, false}, {6, false, true}} {
		c := mt.requestAt(t, q.line).Contract
		tools, _ := c.Declares(spec.Server, "tools", false)
		prompts, _ := c.Declares(spec.Server, "prompts", false)
		roots, _ := c.Declares(spec.Client, "roots", false)
		if tools != q.tools || prompts != q.prompt || !roots {
			t.Errorf("line %d: tools %v prompts %v roots %v; server caps %s", q.line, tools, prompts, roots, c.ServerCaps)
		}
	}
}
