// Package rules is mcpsleuth's rule catalogue: one rule per file, listed in All.
package rules

import "github.com/mcpsleuth/mcpsleuth/pkg/rule"

// All returns the catalogue in ID order. Adding a rule: one file, one line here.
func All() []*rule.Rule {
	return []*rule.Rule{
		InvalidJSON,
		NotJSONRPC,
		DirectionUnknown,
		NoHandshake,
		HTTPError,
		TransportMismatch,
		SessionGone,
		InitializeFailed,
		VersionUnknown,
		VersionNotOffered,
		VersionDowngraded,
		InitializedMissing,
		EarlyTraffic,
		InstructionsTooLong,
		MethodNotInRevision,
		BatchNotInRevision,
		FieldNotInRevision,
		ProtocolHeaderMismatch,
		MissingRequestMeta,
		NoServerFeatures,
		UndeclaredNotification,
		UndeclaredRequest,
		UndeclaredSubfeature,
		DeclaredNotImplemented,
		ListChangedSilently,
		UpdateWithoutSubscribe,
		ChangeNotRefetched,
		UndeclaredInputRequest,
		UnsubscribedNotification,
		OutsideRoots,
		UpdateNotNotified,
		UnansweredRequest,
		UnknownResponse,
		DuplicateID,
		InvalidID,
		BadCancel,
		BadProgress,
		ErrorCodeMisuse,
		SlowResponse,
		SchemaViolation,
		ToolSchemaInvalid,
		ArgumentsRejected,
		StructuredContentMismatch,
		StrictFieldWithoutHint,
	}
}
