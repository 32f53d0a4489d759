package rules

import (
	"bytes"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// OutsideRoots reports file:// URIs in client requests or resources/read results that
// lie outside every root the client returned from roots/list.
var OutsideRoots = &rule.Rule{
	ID:       "MCP2010",
	Name:     "outside-roots",
	Severity: rule.SeverityWarning,
	Title:    "A file URI outside every root the client returned from roots/list",
	Anchor:   "the request or resources/read result that carries the URI",
	Hint:     "validate every file path against the roots the client returned (compare cleaned paths segment by segment, after resolving ..) and refuse or ask before touching anything outside them; re-fetch roots/list after notifications/roots/list_changed",
	Doc: rule.Doc{
		Sees: "Once the client has answered roots/list (2026-07-28: once a request carries a roots/list answer in " +
			"`inputResponses`), every `file://` URI found anywhere in a client request's params (tools/call arguments, " +
			"resources/read uri, prompt arguments; `_meta`, `inputResponses` and `requestState` are skipped) and every " +
			"`file://` URI in a resources/read result's `contents` is compared with the returned roots. Paths are compared " +
			"by segments after percent-decoding and resolving `.` and `..`: `file:///kb2/x` is not inside `file:///kb`, " +
			"`file:///kb/../etc/passwd` is outside it. Before any roots/list answer, after notifications/roots/list_changed " +
			"until the next answer, and when the client returned an empty list, the rule cannot judge and says so. A client " +
			"that declared no `roots` capability sets no boundary, so its URIs are not judged at all.",
		Why: "Roots are the client's statement of where the server may work. A server that reads or writes outside them " +
			"acts beyond what the user granted (the classic path-traversal hole in file tools), and a client that sends " +
			"paths outside its own roots is about to be refused by a server that checks them. Either way the user sees " +
			"a tool that touches the wrong files or fails on the right ones.",
		Fix: "Server: resolve every path (percent-decoding, `..`, symlinks) and check it lies under one of the roots before " +
			"using it; refuse with a tool error otherwise; re-fetch roots/list when the client sends " +
			"notifications/roots/list_changed. Client: add the directory as a root (and send list_changed) before " +
			"asking the server to work there.",
		Bad: `{"id":0,"method":"roots/list"}
{"id":0,"result":{"roots":[{"uri":"file:///kb","name":"kb"}]}}
{"id":3,"method":"resources/read","params":{"uri":"file:///kb/../etc/passwd"}}`,
		Good: `{"id":0,"method":"roots/list"}
{"id":0,"result":{"roots":[{"uri":"file:///kb","name":"kb"}]}}
{"id":3,"method":"resources/read","params":{"uri":"file:///kb/notes/todo.md"}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "client/roots#security-considerations", Says: "roots define the boundaries of where servers can operate within the filesystem; servers SHOULD respect root boundaries during operations and validate all paths against provided roots"},
			{Revision: spec.Rev20251125, Page: "client/roots#security-considerations", Says: "unchanged: servers SHOULD respect root boundaries and validate all paths against the provided roots; clients MUST validate root URIs to prevent path traversal"},
			{Revision: spec.Rev20260728, Page: "basic/patterns/mrtr#inputresponses", Says: "roots/list is answered inside inputResponses of the retried request; the same boundaries apply"},
		},
	},
	New: func() rule.Checker { return &rootsWatch{} },
}

// Bounds of the params walk: nesting depth and file URIs looked at per message.
const (
	rootsWalkDepth = 16
	rootsWalkURIs  = 32
)

type rootsWatch struct {
	known     bool     // a roots answer is in force
	roots     []string // cleaned paths of the file:// roots
	rootURIs  []string // the roots as the client wrote them (for messages)
	rootsLine int
	staleLine int // notifications/roots/list_changed since the last answer
	reads     inflightURIs
}

// maxRoots bounds the roots remembered from one answer.
const maxRoots = 256

func (w *rootsWatch) Message(p *rule.Pass, m *session.Message) {
	switch {
	case m.Kind == frame.KindResult && m.Request != nil && m.Request.Method == "roots/list":
		w.setRoots(get(m.ResultNode(), "roots"), m.Line)
	case m.Kind == frame.KindNotification && m.Method == "notifications/roots/list_changed":
		w.known, w.staleLine = false, m.Line
	case m.Kind == frame.KindRequest && m.Dir != spec.S2C:
		w.request(p, m)
	case m.Kind == frame.KindResult && m.Request != nil && m.Request.Method == "resources/read":
		requested, _ := w.reads.take(m.Request)
		// A result judged is one whose text has "file:" (as written, in this case):
		// looked for only once a URI is found, not in every blob.
		if found := contentsFileURIs(m.ResultNode(), requested); len(found) > 0 && bytes.Contains(m.Result, []byte("file:")) {
			w.judge(p, m, found, "the "+rule.Describe(m))
		}
	}
}

// contentsFileURIs lists the file:// URIs of a resources/read result's contents
// other than the one requested. The contents are read where they lie: a blob of
// megabytes is skipped in one step, and a uri without escapes is not copied, so a
// result without such a URI costs no allocation.
func contentsFileURIs(result frame.Node, requested string) []foundURI {
	var found []foundURI
	eachValue(get(result, "contents"), func(item frame.Node) bool {
		if u := get(item, "uri").Text(); isFileURI(u) && u != requested {
			found = append(found, foundURI{uri: u, where: "contents[].uri"})
		}
		return len(found) < rootsWalkURIs
	})
	return found
}

func (w *rootsWatch) setRoots(list frame.Node, line int) {
	w.known, w.rootsLine, w.staleLine = true, line, 0
	w.roots, w.rootURIs = w.roots[:0], w.rootURIs[:0]
	eachValue(list, func(root frame.Node) bool {
		u := get(root, "uri").Text() // fileURIPath's path is a string of its own
		if p, ok := fileURIPath(u); ok {
			w.roots = append(w.roots, p)
			w.rootURIs = append(w.rootURIs, strings.Clone(u))
		}
		return len(w.roots) < maxRoots
	})
}

func (w *rootsWatch) request(p *rule.Pass, m *session.Message) {
	if len(m.Params) == 0 {
		return
	}
	hasFile := bytes.Contains(m.Params, []byte("file:"))
	hasRoots := bytes.Contains(m.Params, []byte("inputResponses"))
	if !hasFile && !hasRoots {
		return
	}
	params := m.ParamsNode()
	if hasRoots {
		// 2026-07-28: the client answers roots/list inside the retried request.
		eachValue(get(params, "inputResponses"), func(answer frame.Node) bool {
			if roots := get(answer, "roots"); roots.IsArray() {
				w.setRoots(roots, m.Line)
				return false
			}
			return true
		})
	}
	if !hasFile {
		return
	}
	if m.Method == "resources/read" {
		w.reads.put(m.Request, get(params, "uri").Text()) // put clones it
	}
	var found []foundURI
	var at [128]byte
	walkFileURIs(params, append(at[:0], "params"...), 0, &found)
	if len(found) > 0 {
		w.judge(p, m, found, rule.Describe(m))
	}
}

type foundURI struct{ uri, where string }

// walkFileURIs collects the file:// strings under v (bounded depth and count),
// skipping the members that belong to the protocol rather than the operation. at
// is where v is (params.arguments.path): a string is made of it only for a URI found.
func walkFileURIs(v frame.Node, at []byte, depth int, found *[]foundURI) {
	if depth > rootsWalkDepth || len(*found) >= rootsWalkURIs {
		return
	}
	switch v.Kind() {
	case '"':
		if s, _ := v.Str(); isFileURI(s) {
			*found = append(*found, foundURI{uri: s, where: string(at)})
		}
	case '{':
		for k, child := range v.Members {
			if depth == 0 && (k == "_meta" || k == "inputResponses" || k == "requestState") {
				continue
			}
			walkFileURIs(child, append(append(at, '.'), k...), depth+1, found)
			if len(*found) >= rootsWalkURIs {
				return
			}
		}
	case '[':
		for _, child := range v.Elements {
			walkFileURIs(child, append(at, "[]"...), depth+1, found)
			if len(*found) >= rootsWalkURIs {
				return
			}
		}
	}
}

func isFileURI(s string) bool {
	return len(s) > 7 && strings.EqualFold(s[:7], "file://")
}

// judge reports the first found URI outside every root (with the count of others).
func (w *rootsWatch) judge(p *rule.Pass, m *session.Message, found []foundURI, what string) {
	if len(found) == 0 {
		return
	}
	switch {
	case m.Dir == spec.DirUnknown && !m.Kind.IsResponse():
		p.CannotJudge(reasonDirectionUnknown)
		return
	case !w.known && !rootsDeclared(m):
		return // a client without roots sets no boundary: nothing to respect
	case w.staleLine > 0 && !w.known:
		p.CannotJudge(reasonRootsChanged)
		return
	case !w.known:
		p.CannotJudge(reasonNoRootsAnswer)
		return
	case len(w.roots) == 0:
		p.CannotJudge(reasonNoFileRoots)
		return
	}
	var outside []foundURI
	for _, f := range found {
		fp, ok := fileURIPath(f.uri)
		if !ok {
			continue
		}
		if !w.inside(fp) {
			outside = append(outside, f)
		}
	}
	if len(outside) == 0 {
		return
	}
	more := ""
	if len(outside) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(outside)-1)
	}
	first := outside[0]
	resolved, _ := fileURIPath(first.uri)
	p.Report(rule.At(m), rule.Sprintf("%s uses %s (%s, path %s)%s, outside every root the client returned from roots/list (line %d: %s)",
		what, rule.Quote(rule.ValueURI, first.uri), first.where, rule.As(rule.ValueURI, resolved), more, w.rootsLine, w.rootsList()),
		rule.Note(w.rootsLine, rule.Sprintf("the client's roots: %s", w.rootsList())))
}

// rootsDeclared reports whether the client declared roots (or its declaration is
// unknown) in the contract governing m.
func rootsDeclared(m *session.Message) bool {
	c := m.Contract
	if c == nil {
		return true
	}
	declared, known := c.DeclaresCapability(spec.Client, "roots")
	return declared || !known
}

func (w *rootsWatch) inside(p string) bool {
	for _, root := range w.roots {
		if root == "/" || p == root || strings.HasPrefix(p, root+"/") {
			return true
		}
	}
	return false
}

func (w *rootsWatch) rootsList() rule.Message {
	uris := w.rootURIs
	more := ""
	if len(uris) > 3 {
		uris, more = uris[:3], fmt.Sprintf(" and %d more", len(w.rootURIs)-3)
	}
	return quotedList(rule.ValueURI, uris).Plus(rule.Text(more))
}

// fileURIPath turns a file:// URI into a cleaned absolute path (percent-decoded, with
// . and .. resolved; a host other than localhost is kept as a //host prefix).
func fileURIPath(u string) (string, bool) {
	if !isFileURI(u) {
		return "", false
	}
	parsed, err := url.Parse(u)
	if err != nil || parsed.Opaque != "" {
		return "", false
	}
	p := parsed.Path
	if p == "" {
		p = "/"
	}
	p = path.Clean("/" + p)
	if h := parsed.Host; h != "" && !strings.EqualFold(h, "localhost") {
		p = "//" + strings.ToLower(h) + p
	}
	return p, true
}

func (w *rootsWatch) End(*rule.Pass) {}
