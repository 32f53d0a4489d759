package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// VersionUnknown reports a protocolVersion that is not a published revision.
var VersionUnknown = &rule.Rule{
	ID:       "MCP1002",
	Name:     "version-unknown",
	Severity: rule.SeverityError,
	Title:    "A protocolVersion that is not a published revision",
	Anchor:   "the frame that carries the version (initialize request or result, or a modern request)",
	Hint:     "send one of the published revisions exactly: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28 (dates compared as strings; no ranges, no semver)",
	Doc: rule.Doc{
		Sees: `A protocolVersion that is not one of the published revisions 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 and 2026-07-28, compared exactly as a string: in the initialize request (what the client asks for), in the initialize result (what the server answers), or in the _meta["io.modelcontextprotocol/protocolVersion"] of a 2026-07-28 request (reported once per distinct value in a session). An initialize request or result without any protocolVersion is reported too. "draft" names the unreleased specification, not a version to send.`,
		Why:  `Revisions are dates compared exactly: no ranges, no semver, no "latest". A server cannot honour "1.0.0" or "2025-06-18-beta"; it can only guess or refuse, and servers guess differently. When the server's answer is the unknown one, the client has no revision it can speak and should disconnect, and there is no revision to judge the session by: the revision and capability rules say "cannot judge" for all of it. Typical sources are a package version sent instead of a protocol revision, a constant edited by hand, a pre-release date and a typo.`,
		Fix:  `On the side that wrote it: a client sends the newest published revision it implements, as the exact string (for example "2025-06-18"); a server echoes the requested string when it supports it and otherwise answers the newest published revision it supports; a 2026-07-28 client puts "2026-07-28" in the _meta of every request.`,
		Bad: `c->s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1.0.0","capabilities":{},"clientInfo":{"name":"c","version":"1.0.0"}}}
s->c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`,
		Good: `c->s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1.0.0"}}}
s->c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic/lifecycle#version-negotiation", Says: "In the initialize request, the client MUST send a protocol version it supports (SHOULD be its latest). If the server supports it, it MUST respond with the same version; otherwise it MUST respond with another protocol version it supports."},
			{Revision: "2026-07-28", Page: "basic/versioning#protocol-version-negotiation", Says: "Every request declares the protocol version it is using in its _meta field; a server that does not implement the requested version MUST respond with an UnsupportedProtocolVersionError (-32022) listing the versions it supports."},
		},
	},
	New: func() rule.Checker {
		var seen map[string]bool // made at the first version reported: most sessions have none
		return rule.Funcs{OnMessage: func(p *rule.Pass, m *session.Message) {
			var version, where string
			switch {
			case m.Kind == frame.KindRequest && m.Method == "initialize" && m.Contract != nil:
				version, where = m.Contract.Requested, "the client requested"
			case m.Kind == frame.KindResult && m.Request != nil && m.Request.Method == "initialize" && m.Contract != nil:
				version, where = m.Contract.Answered, "the server answered"
			case m.Kind == frame.KindRequest && m.Contract != nil && m.Contract.Era == session.EraModern && m.Contract.RequestLine == m.Line && m.Contract.Requested != "":
				version, where = m.Contract.Requested, "the request's _meta carries"
				if seen[version] {
					return
				}
			default:
				return
			}
			if _, ok := spec.ParseRevision(version); ok {
				return
			}
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[version] = true
			if version == "" {
				p.Report(rule.At(m), rule.Sprintf("%s no protocolVersion at all (%s)", where, rule.Describe(m)))
				return
			}
			p.Report(rule.At(m), rule.Sprintf("%s protocolVersion %s, which is not a published revision (%s)", where, rule.Quote(rule.ValueVersion, version), revisionList()))
		}}
	},
}

func revisionList() string {
	s := ""
	for _, r := range spec.Revisions() {
		if _, ok := spec.ParseRevision(string(r)); !ok {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += string(r)
	}
	return "published: " + s
}
