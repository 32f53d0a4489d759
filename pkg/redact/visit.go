package redact

import "github.com/mcpsleuth/mcpsleuth/pkg/frame"

// StringClass is what redaction does with a string of a frame (Visit).
type StringClass uint8

const (
	// StringKept is kept: protocol values, names, definitions, error messages
	// (secret-looking text inside them is masked by its shape, MaskSecrets).
	StringKept StringClass = iota + 1
	// StringData is a value the session carries (arguments, results, contents,
	// URIs, instructions): hidden when a frame is redacted.
	StringData
	// StringSecret is the value of a member whose name says credential
	// (apiKey, token, password, Authorization): hidden everywhere.
	StringSecret
)

// Visit calls fn for every string value of a frame's message (a JSON-RPC
// message or batch, as Frame redacts it), in the text's order, with what
// redaction does with it: the same routing as Frame and Collect, member by
// member. Strings kept exactly (the envelope, ids, enumerations) are not
// visited. It reports false when the message nests deeper than redaction reads
// (jsontree.MaxDepth): the strings after the first value too deep were not
// visited.
func Visit(n frame.Node, fn func(s frame.Node, class StringClass)) (complete bool) {
	w := walk{collect: true, visit: fn}
	w.frame(n)
	return !w.deep
}

// IsSecretName reports whether a member, header or parameter name says its
// value is a credential (Authorization, apiKey, access_token, password).
func IsSecretName(name string) bool { return isSecretName(name) }

// Secrets calls found with each secret-looking substring of s that MaskSecrets
// masks, in order.
func Secrets(s string, found func(secret string)) {
	maskSecrets(s, found)
}
