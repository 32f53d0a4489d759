package record_test

import (
	"fmt"
	"net"
	"net/url"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/record"
)

// TestLoopsBack (issue 29, item 9): an --upstream that is the proxy itself
// (its address, or a local one when it listens on every address, at its port)
// is named before anything is forwarded; another port or host is not.
func TestLoopsBack(t *testing.T) {
	for _, c := range []struct {
		listen, host string
		same         bool // the upstream's port is the listener's
		loops        bool
	}{
		{"127.0.0.1:0", "127.0.0.1", true, true},
		{"127.0.0.1:0", "localhost", true, true},
		{"127.0.0.1:0", "127.0.0.1", false, false},
		{":0", "127.0.0.1", true, true},
		{":0", "localhost", true, true},
		{"127.0.0.1:0", "no-such-host.invalid", true, false},
	} {
		ln, err := net.Listen("tcp", c.listen)
		if err != nil {
			t.Skipf("cannot listen on %s: %v", c.listen, err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		if !c.same {
			port++
		}
		up, _ := url.Parse(fmt.Sprintf("http://%s:%d/mcp", c.host, port))
		if got := record.LoopsBack(up, ln.Addr()); got != c.loops {
			t.Errorf("listening on %s, --upstream %s: loops back %v, want %v", ln.Addr(), up, got, c.loops)
		}
		ln.Close()
	}
}
