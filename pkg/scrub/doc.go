// Package scrub writes a capture back with its secrets, and on request every
// value it carries, replaced by stable pseudonyms (mcpsleuth redact): the same
// format out as in, byte for byte but the values replaced, so that a customer's
// capture can travel with a ticket and still be analysed.
//
// The capture is read once, by the same Reader as check (pkg/frame), with a tee
// that keeps the bytes of the lines not yet written (window). Each frame the
// Reader decodes is walked with redaction's routing (redact.Visit): a value at a
// member whose name says credential is a secret; with Options.Values, every
// string the session carries (arguments, results, contents, URIs, log data,
// instructions) is replaced too. The frame's bytes are found in its source line,
// as they are (JSON lines, logs with a prefix) or inside a JSON string (a HAR's
// bodies, a logger's message field), and each value is replaced there. The
// container around the frames (a HAR's headers and URLs, an envelope's session,
// stderr lines) is scrubbed as each line is written: credential headers and
// session ids by their names, secret-looking text by its shape
// (redact.Secrets), and every secret already replaced elsewhere wherever it
// appears again.
//
// A pseudonym is "redacted-" and 12 hex digits of a keyed hash of the value:
// the same value gets the same pseudonym across the capture (and across
// captures scrubbed with the same key), so correlations survive, and every
// pseudonym has the same length, so no length leaks. It needs no escaping in
// any JSON string, at any depth. Method names, ids, protocol versions,
// capability declarations and definitions stay: the analysis of the copy is
// the analysis of the capture.
package scrub
