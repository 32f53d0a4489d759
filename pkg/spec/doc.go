// Package spec holds protocol facts about the Model Context Protocol (MCP): the
// published revisions, which methods exist in which revision and direction, the
// capability that gates each method, the capability fields each revision defines,
// the JSON-RPC error codes each revision defines, and the official schema.json of
// every revision.
//
// The facts come from files embedded at build time (data/*.tsv and
// schemas/<revision>/schema.json, copied from the official specification
// repository). The tables are parsed once, on first use, and never modified
// afterwards; a malformed embedded table is a build defect and makes the first
// call that needs it panic. Every exported function is safe for concurrent use,
// and every slice it returns is a fresh copy that the caller may modify.
package spec
