package spec

import "testing"

func TestHTTPAnswersRefuses(t *testing.T) {
	tests := []struct {
		rev     Revision
		sse     bool // the session's exchanges went to an HTTP+SSE endpoint
		method  string
		status  int
		refused bool
		known   bool
	}{
		{Rev20250326, false, "GET", 405, false, true}, // the server offers no stream: allowed
		{Rev20250326, false, "GET", 400, true, true},  // mcp-lite's "Protocol version mismatch"
		{Rev20251125, false, "get", 404, true, true},  // methods are case-insensitive
		{Rev20250618, false, "GET", 200, false, true}, // success is judged by its content type, not here
		{Rev20250618, false, "DELETE", 405, false, true},
		{Rev20250618, false, "DELETE", 400, true, true},
		{Rev20250618, false, "DELETE", 500, true, true},
		{Rev20251125, false, "POST", 405, true, true}, // a POST may not be refused at all
		{Rev20251125, false, "POST", 202, false, true},
		{Rev20241105, true, "GET", 405, true, true}, // HTTP+SSE: the GET is the only server stream
		{Rev20241105, true, "DELETE", 400, false, false},
		{Rev20250326, true, "GET", 405, true, true},   // HTTP+SSE whatever the revision
		{Rev20241105, false, "GET", 405, false, true}, // 2024-11-05 over Streamable HTTP: no stream offered
		{Rev20260728, false, "GET", 405, false, true}, // no standalone stream in 2026-07-28
		{Rev20260728, false, "DELETE", 405, false, true},
		{"", false, "GET", 405, false, true}, // no handshake seen: Streamable HTTP
		{"", false, "GET", 400, true, true},
		{Rev20250618, false, "PUT", 400, false, false},
	}
	for _, tt := range tests {
		a, ok := HTTPTransport(tt.rev, tt.sse).Answers(tt.method)
		if ok != tt.known {
			t.Errorf("%s (%q): %s known %v, want %v", HTTPTransport(tt.rev, tt.sse), tt.rev, tt.method, ok, tt.known)
			continue
		}
		if !ok {
			continue
		}
		if got := a.Refuses(tt.status); got != tt.refused {
			t.Errorf("%s %s answered %d: refused %v, want %v", tt.rev, tt.method, tt.status, got, tt.refused)
		}
	}
	if a, _ := HTTPTransport(Rev20250326, false).Answers("GET"); !a.EventStreamOnly || a.Page != "basic/transports#listening-for-messages-from-the-server" {
		t.Errorf("2025-03-26 GET: %+v", a)
	}
}

// Authorization discovery documents are not the MCP endpoint, under any prefix; the
// endpoint itself and a path merely mentioning well-known are.
func TestWellKnownPath(t *testing.T) {
	for path, want := range map[string]bool{
		"/.well-known/oauth-protected-resource/mcp": true,
		"/.well-known/oauth-authorization-server":   true,
		"/mcp/.well-known/openid-configuration":     true,
		"/mcp":                                      false,
		"/well-known/mcp":                           false,
		"/":                                         false,
	} {
		if got := WellKnownPath(path); got != want {
			t.Errorf("WellKnownPath(%q) = %v, want %v", path, got, want)
		}
	}
}

// A 400 for a request without a session is the prescribed answer only where
// Streamable HTTP has sessions (2025-03-26 to 2025-11-25, or no handshake seen),
// over whatever revision.
func TestMissingSessionRefusal(t *testing.T) {
	for _, c := range []struct {
		rev    Revision
		sse    bool
		status int
		want   bool
	}{
		{Rev20250618, false, 400, true}, {"", false, 400, true}, {Rev20251125, false, 404, false},
		{Rev20241105, false, 400, true}, {Rev20241105, true, 400, false}, {Rev20260728, false, 400, false},
	} {
		tr := HTTPTransport(c.rev, c.sse)
		if got := tr.MissingSessionRefusal(c.status); got != c.want {
			t.Errorf("%s (%q): MissingSessionRefusal(%d) = %v, want %v", tr, c.rev, c.status, got, c.want)
		}
	}
}
