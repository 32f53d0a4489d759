package spec

// JSON-RPC error codes defined by at least one revision. See changes.md section 4 of
// the reference data and ErrorCodeIn for the revisions that define each one.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	// CodeResourceNotFound is defined by the resources prose of 2024-11-05 through
	// 2025-11-25 (not a schema constant). From 2026-07-28 on servers use
	// CodeInvalidParams instead.
	CodeResourceNotFound = -32002
	// CodeURLElicitationRequired (URLElicitationRequiredError) exists only in
	// 2025-11-25.
	CodeURLElicitationRequired = -32042
	// CodeHeaderMismatch exists from 2026-07-28 on.
	CodeHeaderMismatch = -32020
	// CodeMissingRequiredClientCapability exists from 2026-07-28 on.
	CodeMissingRequiredClientCapability = -32021
	// CodeUnsupportedProtocolVersion exists from 2026-07-28 on.
	CodeUnsupportedProtocolVersion = -32022
)

// ErrorCodeIn reports whether the JSON-RPC error code is defined for revision r:
// the five standard JSON-RPC codes in every revision, -32002 in the four legacy
// revisions, -32042 only in 2025-11-25, and -32020, -32021 and -32022 only in
// 2026-07-28 and draft. It is false for an unknown revision.
func ErrorCodeIn(code int64, r Revision) bool {
	if !r.Known() {
		return false
	}
	switch code {
	case CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams, CodeInternalError:
		return true
	case CodeResourceNotFound:
		return r.Has(FeatureCodeResourceNotFound)
	case CodeURLElicitationRequired:
		return r.Has(FeatureCodeURLElicitationRequired)
	}
	if ModernError(code) {
		return r.Has(FeatureCodesTransport)
	}
	return false
}

// ModernError reports whether a JSON-RPC error code is a recognized modern error
// (the codes only 2026-07-28 and later define: -32020, -32021, -32022): an
// answer that identifies a modern server, on which a dual-era client retries
// rather than falling back to initialize (2026-07-28 basic/versioning, "Backward
// Compatibility with Initialization-Based Versions").
func ModernError(code int64) bool {
	switch code {
	case CodeHeaderMismatch, CodeMissingRequiredClientCapability, CodeUnsupportedProtocolVersion:
		return true
	}
	return false
}

// UnknownName is how a revision answers a request that names something the receiver
// does not have (a tool, a prompt, a resource) while the method itself exists.
type UnknownName struct {
	What string // "tool", "prompt", "resource"
	Code int64
}

// UnknownNameOf is the answer revision r gives a method for a name the receiver does
// not have: -32602 for an unknown tool or prompt; for a resource not found, -32002
// up to 2025-11-25 and -32602 from 2026-07-28. ok is false for other methods.
func UnknownNameOf(method string, r Revision) (UnknownName, bool) {
	switch method {
	case "tools/call":
		return UnknownName{What: "tool", Code: CodeInvalidParams}, true
	case "prompts/get":
		return UnknownName{What: "prompt", Code: CodeInvalidParams}, true
	case "resources/read":
		if r.Modern() {
			return UnknownName{What: "resource", Code: CodeInvalidParams}, true
		}
		return UnknownName{What: "resource", Code: CodeResourceNotFound}, true
	}
	return UnknownName{}, false
}

// PreReleaseCode is a number the 2026-07-28 draft gave one of its modern errors
// before the release renumbered it: the error's name and its released Code.
type PreReleaseCode struct {
	Name string
	Code int64
}

// PreReleaseCodeOf returns the modern error the draft numbered code (-32001,
// -32003, -32004), or the zero PreReleaseCode.
func PreReleaseCodeOf(code int64) PreReleaseCode {
	switch code {
	case -32001:
		return PreReleaseCode{"HeaderMismatch", CodeHeaderMismatch}
	case -32003:
		return PreReleaseCode{"MissingRequiredClientCapability", CodeMissingRequiredClientCapability}
	case -32004:
		return PreReleaseCode{"UnsupportedProtocolVersion", CodeUnsupportedProtocolVersion}
	}
	return PreReleaseCode{}
}

// CodeConnectionClosed is the code the TypeScript SDK gives a request whose
// connection closed before its answer (ErrorCode.ConnectionClosed): no revision
// defines it, but bridges (mcp-remote) forward it to the client as the answer.
const CodeConnectionClosed = -32000

// ToolCallProtocolError reports whether an error answer to tools/call with this
// code is a protocol error, the kind the tools page sends as a JSON-RPC error: a
// request the server could not take at all (a parse error, an invalid request,
// tools/call not served, invalid params: an unknown tool or a request that breaks
// CallToolRequest), an error any revision or the 2026-07-28 draft defines for
// the protocol (-32002, -32042, -32020 to -32022, the draft's -32001, -32003 and
// -32004: whether the revision allows it is another question), or the transport's
// (CodeConnectionClosed). Every other code, -32603 Internal error among them,
// says the server failed while it ran the tool, which the tools page answers with
// a CallToolResult whose isError is true unless the server itself broke.
func ToolCallProtocolError(code int64) bool {
	switch code {
	case CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams,
		CodeResourceNotFound, CodeURLElicitationRequired, CodeConnectionClosed:
		return true
	}
	return ModernError(code) || PreReleaseCodeOf(code).Name != ""
}
