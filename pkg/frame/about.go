package frame

import "sort"

// FormatInfo describes an input format for people choosing --input-format.
type FormatInfo struct {
	Name string
	// What says what writes it and what it looks like.
	What string
	// Lossy formats log that messages passed without the messages themselves: an
	// input in one is reported as "cannot judge", never as a clean pass.
	Lossy bool
	// Document formats are one JSON document (locations are its entries), not lines.
	Document bool
	// Unsupported is set for a format users have that has no decoder of its own: why
	// (it could not be checked against a real recording). Such a name is listed so
	// that nobody takes its absence for an oversight; --input-format does not accept
	// it. What then ends by saying so.
	Unsupported string
}

// About describes every format, sorted by name.
func About() []FormatInfo {
	var out []FormatInfo
	for _, f := range formats {
		what := f.what
		if f.document {
			d := f.newDoc()
			what = d.describe()
		}
		out = append(out, FormatInfo{Name: f.name, What: what, Lossy: f.lossy, Document: f.document})
	}
	for _, u := range unsupportedFormats {
		u.What += " [unsupported: " + u.Unsupported + "]"
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// unsupportedFormats are recorders' formats read from their documentation only: no
// real recording could be made here to check a decoder against, so none is guessed.
var unsupportedFormats = []FormatInfo{
	{
		Name: "mcp-tape-jsonl",
		What: `mcp-tape's trace (a {"v":1,"type":"meta"} header, {"t","dir":"in"|"out","raw"} lines, a {"type":"end"} record)`,
		Unsupported: "not checked against a real recording: mcp-tape is not on the npm registry, so none could be made; " +
			"envelope-jsonl reads such lines by their field names, in/out as relative directions resolved from who sent initialize",
	},
	{
		Name: "qai-proxy-session",
		What: "the session JSON that qai proxy (q-ai, Python) saves: one document of proxied messages with their direction",
		Unsupported: "not checked against a real recording: qai is a Python tool and no Python package index is reachable here, " +
			"and its documentation does not spell the file out field by field",
	},
}
