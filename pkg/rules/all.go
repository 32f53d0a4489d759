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
		InitializeFailed,
		VersionUnknown,
		VersionNotOffered,
		InitializedMissing,
		MethodNotInRevision,
		BatchNotInRevision,
		NoServerFeatures,
		UndeclaredNotification,
		UndeclaredRequest,
		DeclaredNotImplemented,
		ListChangedSilently,
		UnansweredRequest,
		UnknownResponse,
		BadProgress,
	}
}
