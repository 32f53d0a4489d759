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
