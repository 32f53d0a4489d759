package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// Why a rule could not judge a message (rule.Pass.CannotJudge): each reason is
// named once here and the report counts messages per rule and reason. The
// reasons ending in f are formats, filled by because with the rule's own words
// (a side, a list kind, a limit, an internal error), never a captured value.
const (
	// Who sent it, and in which session.
	reasonDirectionUnknown         rule.Reason = "direction unknown"
	reasonDirectionBothOutstanding rule.Reason = "direction unknown and both sides have a request with that id outstanding"
	reasonDirectionBothInFlight    rule.Reason = "direction unknown and both sides have a request with that id in flight"
	reasonResponseEitherSide       rule.Reason = "a response whose direction the log does not show answered either it or the other side's request with the same id"
	reasonConcurrentLog            rule.Reason = "the log writes the two directions from concurrent goroutines (Go SDK LoggingTransport): their order is not causal"

	// Bounds of what a session follows.
	reasonUntrackedf        rule.Reason = "requests dropped from tracking while more than %d were waiting for a response at once: whether they were answered is unknown"
	reasonAnswersUntrackedf rule.Reason = "a response that may answer one of the requests dropped from tracking (more than %d were waiting at once)"

	// The contract and the revision.
	reasonNoContract                rule.Reason = "no contract (no handshake before it)"
	reasonNoContractShort           rule.Reason = "no contract"
	reasonUnknownVersion            rule.Reason = "no governing revision (an unknown protocolVersion)"
	reasonNoRevision                rule.Reason = "no governing revision (no handshake, or an unknown protocolVersion)"
	reasonNoRevisionShort           rule.Reason = "no governing revision"
	reasonNoRevisionToolsList       rule.Reason = "no governing revision for a tools/list result"
	reasonNoRevisionToolsCall       rule.Reason = "no governing revision for a tools/call"
	reasonNoInitialize              rule.Reason = "no initialize in the capture: the negotiated revision is unknown"
	reasonRevisionUnsettled         rule.Reason = "the initialize result did not settle a published revision"
	reasonEraNeverShown             rule.Reason = "the session never showed its era (no initialize, no _meta protocolVersion, no server/discover)"
	reasonEraUnknown                rule.Reason = "era unknown (no initialize and no modern request before it)"
	reasonServerCapsUnknown         rule.Reason = "the server's capabilities are unknown"
	reasonCapsUnknownf              rule.Reason = "the %s's capabilities are unknown (%s not seen)"
	reasonNoMetaCapabilities        rule.Reason = "the request carried no _meta clientCapabilities"
	reasonExtensionUncheckedf       rule.Reason = "extension capabilities (%s) are not checked yet"
	reasonEndsAfterInitializeResult rule.Reason = "the capture ends before the client sent anything after the initialize result"
	reasonInitializedNeverCame      rule.Reason = "server traffic after the initialize result, and notifications/initialized never came (MCP1005): not judged as early"

	// Order and time the capture does not record.
	reasonNoTimestamps             rule.Reason = "the capture has no timestamps: response times unknown"
	reasonAfterCancelNoTimes       rule.Reason = "the capture has no timestamps: whether a message after a cancellation was already on its way is unknown"
	reasonAfterCancelUntimedStream rule.Reason = "a message on an HTTP GET stream, whose time the capture does not record: whether it came after the cancellation is unknown"
	reasonServerMessageOnGet       rule.Reason = "a server message on an HTTP GET stream, whose time the capture does not record"
	reasonProgressOnGet            rule.Reason = "progress on an HTTP GET stream, whose time the capture does not record: its order against the response and the other progress is unknown"
	reasonUpdateOnGet              rule.Reason = "an update on an HTTP GET stream, whose time the capture does not record, for a URI the client subscribed to during the session"
	reasonUpdateOnGetBetweenRead   rule.Reason = "an update for the resource came on an HTTP GET stream, whose time the capture does not record: it may have come between the two reads"
	reasonListChangedOnStream      rule.Reason = "a list_changed came on a long-lived HTTP stream (the GET stream or a subscriptions/listen response), whose time the capture does not record: it may have come between the two lists"
	reasonReadBeforeRequest        rule.Reason = "a resources/read result logged before its request"
	reasonEndsAtChangef            rule.Reason = "the capture ends right after notifications/%s/list_changed"
	reasonEndsWithinGracef         rule.Reason = "the capture ends less than %s after notifications/%s/list_changed"

	// What the rule needs and did not see.
	reasonResultUnanswered    rule.Reason = "a result that answers no known request: its definition is unknown"
	reasonNoToolsList         rule.Reason = "tools/call before any tools/list result: the tool's schemas are unknown"
	reasonToolNotListed       rule.Reason = "tools/call for a tool no tools/list result listed"
	reasonNoRequestID         rule.Reason = "no requestId (a 2025-11-25 task cancellation must use tasks/cancel instead)"
	reasonUnknownSubscription rule.Reason = "a subscriptionId that names no subscriptions/listen request in the capture"
	reasonNoRootsAnswer       rule.Reason = "no roots/list answer before it"
	reasonRootsChanged        rule.Reason = "roots changed (notifications/roots/list_changed) and were not listed again"
	reasonNoFileRoots         rule.Reason = "the client returned no file:// roots"
	reasonPaginated           rule.Reason = "paginated list results are not compared yet"

	// Bounds the rules keep.
	reasonToolNotRememberedf rule.Reason = "tools/call for a tool not remembered (more than %d tools listed)"
	reasonInputSchemaLargef  rule.Reason = "inputSchema larger than %d bytes"
	reasonOutputSchemaLargef rule.Reason = "outputSchema larger than %d bytes"
	reasonTooManySubscribedf rule.Reason = "more than %d subscribed URIs"
	reasonTooManyEarlyf      rule.Reason = "more than %d server messages before notifications/initialized: the rest were not kept"
	reasonTooManyPendingf    rule.Reason = "more than %d requests before the session's era was known: the rest were not kept"
	reasonTooManyIDsf        rule.Reason = "more than %d request ids in the session: the oldest were forgotten, so a later reuse of one of them went unchecked"
	reasonTooManyTokensf     rule.Reason = "more than %d progress tokens in flight: the earlier ones were forgotten"

	// Checks that failed (the error of the schema package).
	reasonSchemaUnavailablef   rule.Reason = "%v"
	reasonFrameUncheckedf      rule.Reason = "the frame could not be checked: %v"
	reasonArgumentsUncheckedf  rule.Reason = "arguments could not be checked: %v"
	reasonStructuredUncheckedf rule.Reason = "structuredContent could not be checked: %v"
)

// because fills a reason's format.
func because(format rule.Reason, args ...any) rule.Reason {
	return rule.Reason(fmt.Sprintf(string(format), args...))
}
