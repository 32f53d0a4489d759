package spec

// Feature is a piece of protocol behaviour that revisions have or lack, as data:
// the revision that added it and the first that removed it. What "this revision
// lacks" means is then a row, not a comparison with a revision's name: a new
// revision that removes a feature sets its Until, one that adds a feature is a
// new row.
type Feature struct {
	// Name says what it is, as a message names it: "JSON-RPC batching".
	Name string
	// Since is the first revision that has it; Until the first that no longer has
	// it ("" while every later revision does).
	Since, Until Revision
}

// The features that findings and views judge by revision.
var (
	// FeatureBatching: arrays of messages in the JSONRPCMessage union.
	FeatureBatching = Feature{Name: "JSON-RPC batching", Since: Rev20250326, Until: Rev20250618}
	// FeatureHandshake: the initialize request, its result and
	// notifications/initialized open the session.
	FeatureHandshake = Feature{Name: "the initialize handshake", Since: Rev20241105, Until: Rev20260728}
	// FeatureStateless: no handshake; each request carries its revision and its
	// sender's capabilities in _meta, and server/discover describes the server.
	FeatureStateless = Feature{Name: "stateless requests with a per-request _meta contract", Since: Rev20260728}
	// FeatureCapabilityMust: "only use capabilities that were successfully
	// negotiated" is a MUST (a SHOULD before).
	FeatureCapabilityMust = Feature{Name: "using only negotiated capabilities as a MUST", Since: Rev20250618}
	// FeatureSubfeatureCapabilities: capabilities that gate part of a request
	// (sampling.tools, elicitation.url, tasks.requests.*), checked on JSON-RPC
	// requests; 2026-07-28 carries those requests only as input requests.
	FeatureSubfeatureCapabilities = Feature{Name: "sub-feature capabilities of requests", Since: Rev20251125, Until: Rev20260728}
	// FeatureTaskResults: a request may be answered with a CreateTaskResult (core
	// tasks in 2025-11-25, the tasks extension from 2026-07-28).
	FeatureTaskResults = Feature{Name: "task-augmented requests", Since: Rev20251125}
	// FeatureCodeResourceNotFound: -32002, resource not found (-32602 from
	// 2026-07-28).
	FeatureCodeResourceNotFound = Feature{Name: "error -32002 (resource not found)", Since: Rev20241105, Until: Rev20260728}
	// FeatureCodeURLElicitationRequired: -32042, URL elicitation required.
	FeatureCodeURLElicitationRequired = Feature{Name: "error -32042 (URL elicitation required)", Since: Rev20251125, Until: Rev20260728}
	// FeatureCodesTransport: -32020, -32021 and -32022 (header mismatch, missing
	// required client capability, unsupported protocol version).
	FeatureCodesTransport = Feature{Name: "errors -32020 to -32022", Since: Rev20260728}
	// FeatureProtocolHeader: every HTTP request after initialize carries
	// MCP-Protocol-Version.
	FeatureProtocolHeader = Feature{Name: "the MCP-Protocol-Version header", Since: Rev20250618}
	// FeatureDefaultDialect2020: a published schema without $schema is JSON Schema
	// 2020-12 (draft-07 before).
	FeatureDefaultDialect2020 = Feature{Name: "JSON Schema 2020-12 as the default dialect", Since: Rev20251125}
)

// Has reports whether revision r has the feature (false for an unknown revision).
func (r Revision) Has(f Feature) bool {
	ri := r.order()
	return ri >= 0 && ri >= f.Since.order() && (f.Until == "" || ri < f.Until.order())
}

// Lacking says how r lacks f, for a message ("" when r has it): "removed in
// 2025-06-18" or "not defined in 2024-11-05 (2025-03-26 added it)".
func (f Feature) Lacking(r Revision) string {
	switch {
	case r.Has(f) || !r.Known():
		return ""
	case r.Before(f.Since):
		return "not defined in " + string(r) + " (" + string(f.Since) + " added it)"
	}
	return "removed in " + string(f.Until)
}
