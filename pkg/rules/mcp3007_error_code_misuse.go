package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// ErrorCodeMisuse reports error codes the governing revision does not define for
// that use.
var ErrorCodeMisuse = &rule.Rule{
	ID:       "MCP3007",
	Name:     "error-code-misuse",
	Severity: rule.SeverityWarning,
	Title:    "An error code the governing revision does not define for that use",
	Anchor:   "the error response",
	Hint:     "use the codes the governing revision defines: -32602 for a missing resource from 2026-07-28 on, -32042 only in 2025-11-25, -32020/-32021/-32022 (not the draft's -32001/-32003/-32004) in 2026-07-28, and nothing else in -32020..-32099",
	Doc: rule.Doc{
		Sees: "The code of each error response, judged by the revision that governs the request it answers: " +
			"-32002 (resource not found) under 2026-07-28, which removed it in favour of -32602; " +
			"-32042 (URLElicitationRequiredError) outside 2025-11-25, the only revision that defines it; " +
			"-32001, -32003 and -32004 under 2026-07-28, the numbers its pre-release draft used for HeaderMismatch, " +
			"MissingRequiredClientCapability and UnsupportedProtocolVersion before they were renumbered to -32020, -32021 and -32022; " +
			"and any other code in -32020..-32099, the range reserved for codes the specification defines, that the revision does not define. " +
			"The five JSON-RPC codes are fine everywhere; -32000..-32019 is implementation-defined in the legacy revisions and not judged; " +
			"codes outside -32768..-32000 belong to the application.",
		Why: "Clients branch on error codes: a resource-not-found, a URL elicitation the user must complete, an unsupported version to retry with " +
			"a supported one. A code from another revision means the client misreads the error (a -32042 in a 2025-06-18 session means nothing " +
			"to that client; a -32004 under 2026-07-28 is not recognised as UnsupportedProtocolVersion, so the client does not retry with a " +
			"version from data.supported). A code the specification reserves but does not define may collide with a future meaning.",
		Fix: "Pick the code from the request's governing revision (the negotiated protocolVersion, or the request's _meta protocolVersion in " +
			"2026-07-28): resource not found is -32002 up to 2025-11-25 and -32602 from 2026-07-28; URL elicitation required (-32042) exists " +
			"only in 2025-11-25; use -32020, -32021 and -32022 for the 2026-07-28 transport errors. Application errors go outside -32768..-32000.",
		Bad: `(2026-07-28 session)
{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"file:///missing.txt","_meta":{...}}}
{"jsonrpc":"2.0","id":6,"error":{"code":-32002,"message":"Resource not found"}}`,
		Good: `(2026-07-28 session)
{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"file:///missing.txt","_meta":{...}}}
{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Resource not found","data":{"uri":"file:///missing.txt"}}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20260728, Page: "basic#error-codes", Says: "-32000..-32019 is legacy and implementation-defined; -32020..-32099 is reserved: \"Implementations MUST NOT emit any code from this sub-range that is not defined by this specification.\" -32002 and -32042 are retired and MUST NOT be emitted."},
			{Revision: spec.Rev20260728, Page: "server/resources#error-handling", Says: "Resource not found: -32602 (Invalid params); clients SHOULD still accept -32002 from older servers."},
			{Revision: spec.Rev20251125, Page: "client/elicitation", Says: "URLElicitationRequiredError, code -32042, is defined by 2025-11-25 only."},
			{Revision: spec.Rev20250618, Page: "server/resources#error-handling", Says: "Resource not found: -32002."},
		},
	},
	Kinds: rule.KindsOf(frame.KindError),
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind != frame.KindError {
			return
		}
		rev := m.Revision()
		if rev == "" {
			p.CannotJudge(reasonNoRevision)
			return
		}
		why := errorCodeMisuse(m.ErrorCode, rev)
		if why == "" {
			return
		}
		what := "an error response"
		if m.Request != nil {
			what = fmt.Sprintf("the error response to %s id=%s", m.Request.Method, m.Request.ID)
		}
		p.Report(rule.At(m), rule.Sprintf("%s uses code %d under %s: %s", what, m.ErrorCode, rev, why))
	}),
}

// errorCodeMisuse says why code is wrong under rev ("" when it is fine).
func errorCodeMisuse(code int64, rev spec.Revision) string {
	if spec.ErrorCodeIn(code, rev) {
		return ""
	}
	switch {
	case code == spec.CodeResourceNotFound && rev.Modern():
		return "-32002 (resource not found) was retired in 2026-07-28 and must not be emitted; a missing resource is -32602 (Invalid params) there"
	case code == spec.CodeURLElicitationRequired:
		return "-32042 (URLElicitationRequiredError) exists only in 2025-11-25; the peer of a " + string(rev) + " session does not know it"
	case rev.Modern() && spec.PreReleaseCodeOf(code).Name != "":
		c := spec.PreReleaseCodeOf(code)
		return fmt.Sprintf("%d was the pre-release draft's number for %s; the released 2026-07-28 defines it as %d, so a client of the release does not recognise this error", code, c.Name, c.Code)
	case code <= -32020 && code >= -32099 && rev.Modern():
		return fmt.Sprintf("-32020..-32099 is reserved for codes the specification defines, and %s defines only -32020, -32021 and -32022 there: implementations must not emit any other", rev)
	case code <= -32020 && code >= -32099:
		return fmt.Sprintf("-32020..-32099 is where MCP places the codes its specification defines, and %s defines no code there%s: peers that follow later revisions will misread it (implementation-defined codes belong in -32000..-32019 in the legacy revisions)", rev, definedInReserved(rev))
	}
	return ""
}

// definedInReserved names the code rev defines in -32020..-32099, as an exception
// to "no code there".
func definedInReserved(rev spec.Revision) string {
	if spec.ErrorCodeIn(spec.CodeURLElicitationRequired, rev) {
		return " but -32042"
	}
	return ""
}
