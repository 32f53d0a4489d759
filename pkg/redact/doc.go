// Package redact makes what mcpsleuth prints from a capture fit for a ticket
// (--redact): the values carried in params and results become a placeholder
// with their type and length; what triage needs stays (methods, ids, capability
// objects, protocol versions, error codes and messages, tool and prompt names and
// definitions with their schemas, content types); secret-looking strings are
// masked everywhere, kept fields included.
//
// A finding carries the captured values its message and notes quote, with what
// each is (rule.Value): Message replaces exactly those of the kinds it hides,
// where the message shows them. Every value hidden in a session's frames, and
// every secret masked there, joins the session's Set as the analysis sees the
// frame (Collect), and is replaced wherever else the session prints it: in the
// values a message keeps, in error messages and names kept in frames, in the
// timeline's subjects and context lines.
package redact
