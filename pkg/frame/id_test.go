package frame_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// Ids equal in value have one key; ids that differ in value or type never share it
// (issue 11 item 14).
func TestIDKey(t *testing.T) {
	same := [][]string{
		{`1`, `1.0`, `1e0`, `10e-1`, `0.1e1`, `1.000`, `1E+0`},
		{`3`, `3e0`, `30e-1`},
		{`0`, `-0`, `0.0`, `0e5`, `-0.0e-3`},
		{`-12`, `-1.2e1`, `-120e-1`},
		{`1.5`, `15e-1`, `0.15e1`, `1.50`},
		{`100`, `1e2`, `1.00e2`},
		{`1e100`, `10e99`, `1` + strings.Repeat("0", 100)},
		{`"7"`, `"\u0037"`},
		{`"a/b"`, `"a\/b"`},
		{`"é😀"`, `"\u00e9\ud83d\ude00"`},
		{`"a\"b"`, `"a\u0022b"`},
		{`"a\\b"`, `"a\u005cb"`},
		{`"\n"`, `"\u000a"`, `"\u000A"`},
		{`null`},
	}
	keys := map[string]string{}
	for _, group := range same {
		want := frame.IDKey(group[0])
		for _, id := range group {
			got := frame.IDKey(id)
			if got != want {
				t.Errorf("IDKey(%s) = %q, IDKey(%s) = %q: want the same key", id, got, group[0], want)
			}
			if other, ok := keys[got]; ok && other != group[0] {
				t.Errorf("IDKey(%s) = %q, the key of %s too", id, got, other)
			}
			keys[got] = group[0]
		}
	}
	for _, pair := range [][2]string{
		{`1`, `"1"`}, {`1`, `2`}, {`1.5`, `1`}, {`"a"`, `"A"`}, {`10`, `1`}, {`-1`, `1`},
		{`123456789012345678901234567890`, `123456789012345678901234567891`},
		{`1e64`, `1e65`}, {`"1.0"`, `"1"`}, {`0`, `"0"`}, {`null`, `"null"`},
	} {
		if a, b := frame.IDKey(pair[0]), frame.IDKey(pair[1]); a == b {
			t.Errorf("IDKey(%s) = IDKey(%s) = %q: want different keys", pair[0], pair[1], a)
		}
	}
	// Canonical tokens are their own keys: no copy on the hot path.
	for _, id := range []string{`0`, `1`, `-5`, `42`, `"abc"`, `"req-7"`, `null`} {
		if got := frame.IDKey(id); got != id {
			t.Errorf("IDKey(%s) = %q, want the token itself", id, got)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = frame.IDKey(`12345`) + frame.IDKey(`"req-1"`) }); n != 0 {
		t.Errorf("canonical ids allocate %v times", n)
	}
}

// A string's key decodes it as encoding/json does: two string tokens have the same
// key exactly when they decode to the same string.
func FuzzIDKey(f *testing.F) {
	for _, s := range []string{`"7"`, `"\u0037"`, `"\ud83d\ude00"`, `"\ud800x"`, `1.0`, `-0`, `3e0`, `1e100`} {
		f.Add(s, `"x"`)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		var va, vb any
		if json.Unmarshal([]byte(a), &va) != nil || json.Unmarshal([]byte(b), &vb) != nil {
			return
		}
		sa, okA := va.(string)
		sb, okB := vb.(string)
		if !okA || !okB || strings.TrimSpace(a) != a || strings.TrimSpace(b) != b {
			return
		}
		if strings.ToValidUTF8(a, "") != a || strings.ToValidUTF8(b, "") != b {
			return // invalid bytes are kept in keys, replaced by encoding/json
		}
		if (frame.IDKey(a) == frame.IDKey(b)) != (sa == sb) {
			t.Fatalf("IDKey(%s) = %q, IDKey(%s) = %q; decoded %q and %q", a, frame.IDKey(a), b, frame.IDKey(b), sa, sb)
		}
	})
}
