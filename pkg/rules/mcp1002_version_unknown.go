package rules

import (
	"fmt"

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
	New: func() rule.Checker {
		seen := map[string]bool{}
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
			seen[version] = true
			if version == "" {
				p.Report(rule.At(m), fmt.Sprintf("%s no protocolVersion at all (%s)", where, rule.Describe(m)))
				return
			}
			p.Report(rule.At(m), fmt.Sprintf("%s protocolVersion %s, which is not a published revision (%s)", where, quote(version), revisionList()))
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
