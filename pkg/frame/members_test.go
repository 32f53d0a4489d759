package frame_test

import (
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

func TestParamMembers(t *testing.T) {
	for _, c := range []struct {
		in, path, want string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":2}]},"_meta":{"progressToken":7}}}`, "",
			`name="x" arguments={"a":[1,{"b":2}]} _meta={"progressToken":7} `},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, "_meta",
			`progressToken=7 io.modelcontextprotocol/protocolVersion="2026-07-28" `},
		// An escaped key is yielded unescaped, as gjson does.
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_m\u0065ta":{"progressToken":"t"}}}`, "", `_meta={"progressToken":"t"} `},
		{`{"dir":"c->s","msg":{"jsonrpc":"2.0","id":1,"method":"ping","params":{"cursor":null}}}`, "", `cursor=null(null) `},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}`, "", ``},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "", ``},
		// Not an object: what gjson's ForEach does (the value, once, without a key).
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":5}}`, "_meta", `=5 `},
		// Stopping early.
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1,"stop":2,"c":3}}`, "", `a=1 stop=2 `},
	} {
		f := onlyFrame(t, c.in, frame.Options{})
		var b strings.Builder
		f.ParamMembers(c.path, func(k string, v frame.Value) bool {
			b.WriteString(k + "=" + v.Raw())
			if v.IsNull() {
				b.WriteString("(null)")
			}
			b.WriteString(" ")
			return k != "stop"
		})
		if b.String() != c.want {
			t.Errorf("%s: ParamMembers(%q) = %q, want %q", c.in, c.path, b.String(), c.want)
		}
	}
}
