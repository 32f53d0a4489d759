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
	// Instead is set for a format users have that has no decoder of its own
	// (NotReadYet): what to do with such a file today.
	Instead string
}

// About describes every format --input-format accepts, sorted by name.
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
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// NotReadYet describes the recorders' formats that have no decoder of their
// own, with what to do with such a file today: known from their documentation
// only, never checked against a real recording, so no decoder is guessed.
// --input-format does not accept their names; --list-formats lists them apart,
// so that nobody takes their absence for an oversight.
func NotReadYet() []FormatInfo { return append([]FormatInfo(nil), notReadYet...) }

var notReadYet = []FormatInfo{
	{
		Name:    "mcp-tape-jsonl",
		What:    `mcp-tape's trace (a {"v":1,"type":"meta"} header, {"t","dir":"in"|"out","raw"} lines, a {"type":"end"} record)`,
		Instead: "auto-detection reads its lines as envelope-jsonl, by their field names (in and out resolved from who sent initialize)",
	},
	{
		Name:    "qai-proxy-session",
		What:    "the session JSON that qai proxy (q-ai, Python) saves: one document of proxied messages with their direction",
		Instead: "not read: a sample recording (redacted) in an issue is what it takes to add it",
	},
}
