package rules

import (
	"net/http"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// EraFallback reports a dual-era client that misread the answer to its
// server/discover probe: it did not fall back to initialize when the answer
// marked a legacy server, or fell back when the answer said the server speaks only
// modern revisions.
var EraFallback = &rule.Rule{
	ID:       "MCP1014",
	Name:     "era-fallback",
	Severity: rule.SeverityWarning,
	Title:    "A dual-era client misread the answer to its server/discover probe (no fallback to initialize after an answer that marks a legacy server, a fallback after a modern error), or a legacy server answered the probe with a success that is no DiscoverResult",
	Anchor:   "the probe's answer (the probe itself when it got none)",
	Hint:     "after server/discover: on a DiscoverResult or a modern error (-32020, -32021, -32022) the server is modern: retry with a version from its list; on any other error, an HTTP refusal without a modern error, or no answer, the server is legacy: send initialize",
	Doc: rule.Doc{
		Sees: "A client's server/discover request before any initialize (a dual-era client's probe, 2026-07-28), its answer, and " +
			"whether the client then sent initialize: in the same session (stdio) or, over HTTP, as a new session (its answer names a new " +
			"Mcp-Session-Id) while the probe's was open. Two mistakes, each naming the client: the answer marked a legacy server (an " +
			"error that is not a recognized modern error, such as -32601 or -32602, an HTTP refusal whose body holds no modern error, or " +
			"no answer at all) and no initialize followed before the capture ended; or the answer was a modern error whose supported " +
			"list names only modern revisions, and the client fell back to initialize anyway, which such a server cannot accept. A " +
			"fallback after another modern error (one whose list names modern and legacy revisions, or -32020, -32021) goes against the spec's " +
			"\"retry rather than fall back\" but may reach a dual-era server, and " +
			"is info; a fallback after a list of legacy revisions only, or a probe answered with a DiscoverResult, is not reported. A third names the server: a probe answered with a " +
			"success that is no DiscoverResult (no supportedVersions), which leaves a dual-era client no error to fall back on.",
		Why: "The era probe decides whether anything works: a client that treats a legacy server's -32601 (or its 400 for a request " +
			"without a session) as fatal never connects to any server written before 2026-07-28 (rust-sdk#1040), and one that falls " +
			"back to initialize against a modern-only server gets a refusal instead of the version negotiation the error offered. " +
			"Neither side logs anything that names the cause: the capture's probe and its answer are the evidence.",
		Fix: "Client: key the fallback to the answer's era, not to one error code. A DiscoverResult or a modern error (-32020 header " +
			"mismatch, -32021 missing client capability, -32022 unsupported version) means a modern server: retry with a version from " +
			"its supported list, or report that none is compatible. Any other error, an HTTP 400/404/405 without a modern error in the " +
			"body, or no answer within a timeout means a legacy server: send initialize and continue in the legacy era.",
		Bad: `c->s {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{...}}}
s->c {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}
# the client reports "connection failed" and stops`,
		Good: `c->s {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{...}}}
s->c {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}
c->s {"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25",...}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20260728, Page: "basic/transports/stdio#backward-compatibility", Says: "The server returns a recognized modern JSON-RPC error such as UnsupportedProtocolVersionError: the server is modern but does not support the requested version. Use one of the versions in its advertised supported list. Do not fall back to initialize. The server returns any other error, or does not respond within a reasonable timeout: the server is legacy. Fall back to the initialize handshake. The fallback MUST NOT be keyed to one specific error code."},
			{Revision: spec.Rev20260728, Page: "basic/transports/streamable-http#backward-compatibility", Says: "On 400 Bad Request, the client SHOULD inspect the response body before falling back. If the body contains a recognized modern JSON-RPC error, the server speaks a modern version of MCP: retry using the advertised supported versions or correct the request, rather than falling back. If the body is empty or is not a recognized modern JSON-RPC error, fall back to initialize."},
		},
	},
	New: func() rule.Checker { return &eraFallbackChecker{} },
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"server/discover"},
}

// eraFallbackChecker keeps the session's latest probe and its answer.
type eraFallbackChecker struct {
	probe     *session.Request // the latest server/discover sent before any initialize
	id        string           // its id (the record's may share the frame's bytes)
	at        rule.Anchor      // where the finding points: the answer, or the probe
	answered  bool             // a response came (a result or an error)
	code      int64            // the error's code (0 for a result)
	codeText  string           // the error's message, as the server wrote it
	supported []string         // the error's data.supported, when it named any
	// discovered is set when a result answered the probe with supportedVersions
	// (a DiscoverResult).
	discovered bool
}

func (c *eraFallbackChecker) Message(p *rule.Pass, m *session.Message) {
	switch {
	case m.Kind == frame.KindRequest && m.Method == "server/discover" && m.Dir == spec.C2S && p.Session.Legacy == nil &&
		p.Session.FallbackLine == 0:
		*c = eraFallbackChecker{probe: m.Request, id: strings.Clone(m.ID), at: kept(rule.At(m))}
	case c.probe != nil && m.Kind.IsResponse() && m.Request == c.probe:
		c.answered, c.at = true, kept(rule.At(m))
		if m.Kind == frame.KindResult {
			_, c.discovered = m.Frame.Node().Path("result", "supportedVersions")
		}
		if m.Kind == frame.KindError {
			c.code, c.codeText = m.ErrorCode, strings.Clone(m.ErrorMessage)
			c.supported = supportedVersions(m)
		}
	}
}

func (c *eraFallbackChecker) End(p *rule.Pass) {
	s := p.Session
	switch {
	case c.probe == nil, c.answered && c.code == 0 && c.discovered:
		return // no probe, or a DiscoverResult: a modern server
	case c.answered && c.code == 0:
		p.Report(c.at, rule.Sprintf("the server answered the client's server/discover id=%s with a result that has no "+
			"supportedVersions, so no DiscoverResult: a legacy server that answers a method it does not know with a success looks "+
			"modern to a dual-era client, which then has no error to fall back to initialize on", c.id).By(spec.Server))
		return
	}
	if s.FallbackLine != 0 {
		if !spec.ModernError(c.code) {
			return // a legacy server's answer: the fallback is right
		}
		modern, legacy := eras(c.supported)
		if legacy && !modern {
			return // the server lists only legacy revisions: initialize is how to use one
		}
		if !modern || legacy {
			p.ReportSeverity(rule.SeverityInfo, c.at, rule.Sprintf("the client fell back to initialize (%s) after the server answered "+
				"its server/discover id=%s with %d %s, a modern error: the server speaks a modern revision, and a dual-era client "+
				"retries with a version from its supported list (or corrects the request) rather than falling back",
				place(s.FallbackLine, s.FallbackEntry), c.id, c.code, rule.Quote(rule.ValueErrorMessage, c.codeText)).By(spec.Client))
			return
		}
		p.Report(c.at, rule.Sprintf("the client fell back to initialize (%s) after the server answered its server/discover id=%s "+
			"with %d %s, a modern error whose supported list names only modern revisions (%s): that server accepts no initialize; a "+
			"dual-era client retries server/discover with a version from the list, or reports that none is compatible",
			place(s.FallbackLine, s.FallbackEntry), c.id, c.code, rule.Quote(rule.ValueErrorMessage, c.codeText), quotedList(rule.ValueVersion, c.supported)).By(spec.Client))
		return
	}
	var answer rule.Message
	switch {
	case c.answered && spec.ModernError(c.code):
		return // a modern server that refused the version: no fallback is due
	case c.answered:
		answer = rule.Sprintf("answered the client's server/discover id=%s with %d %s, which is no recognized modern error",
			c.id, c.code, rule.Quote(rule.ValueErrorMessage, c.codeText))
	case c.probe.HTTPStatus >= 400:
		answer = rule.Sprintf("refused the client's server/discover id=%s with HTTP %d %s and no modern error in the body",
			c.id, c.probe.HTTPStatus, rule.Text(http.StatusText(c.probe.HTTPStatus)))
	default:
		answer = rule.Sprintf("never answered the client's server/discover id=%s", c.id)
	}
	p.Report(c.at, rule.Sprintf("the server %s: the server is legacy, and the client never fell back to initialize; %s",
		answer, sessionEndAfter(s, c.at.Line, c.at.Time)).By(spec.Client))
}

// supportedVersions reads an UnsupportedProtocolVersionError's data.supported,
// copied out of the frame.
func supportedVersions(m *session.Message) []string {
	list, ok := m.Frame.Node().Path("error", "data", "supported")
	if !ok {
		return nil
	}
	var out []string
	for _, v := range list.Elements {
		if s, ok := v.Str(); ok {
			out = append(out, strings.Clone(s))
		}
	}
	return out
}

// eras reports whether a list of versions names a published modern revision,
// and a published legacy one (which an initialize negotiates).
func eras(versions []string) (modern, legacy bool) {
	for _, v := range versions {
		if r, ok := spec.ParseRevision(v); ok {
			modern, legacy = modern || r.Modern(), legacy || !r.Modern()
		}
	}
	return modern, legacy
}
