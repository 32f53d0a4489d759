package redact

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/jsontree"
	"unicode/utf8"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// walk redacts a JSON text read with pkg/frame (a frame's Node, or frame.Parse of
// bytes that are one JSON text), in one pass over its tokens. It hides the values
// of the kinds a frame carries as data, masks secrets in what it keeps, and, with
// a Set, either adds what it hides and masks to the set (collecting: nothing is
// written) or replaces the set's values in the strings it keeps and writes the
// redacted text, compact, to out.
//
// What it hides and keeps is what the tolerant walk of other bytes (treeWalk,
// lenient.go) hides and keeps, member by member (route). Like that reader, it
// reads no value nested deeper than jsontree.MaxDepth: at the first one, in the text's
// order, it stops (deep); collecting, nothing after it is collected, as the
// tolerant reader reads nothing after it; writing, the caller redacts the bytes
// with the tolerant walk instead.
type walk struct {
	set     *Set
	collect bool
	out     []byte
	deep    bool
	// arguments is set while a request's arguments are walked (collecting, the
	// secrets inside them are added on their own: addInnerSecrets).
	arguments bool
	// visit, when set (with collect), receives each string instead of the set
	// (Visit); secret says the scalar being hidden is a credential's.
	visit  func(s frame.Node, class StringClass)
	secret bool
	// memo, when set (collecting), holds the kept values that added nothing
	// before (keepWhole); added says whether the walk added a value or a secret
	// since keepWhole last looked.
	memo  *keptMemo
	added bool
	// content is set once the walk reads a value (collectFrame): where it
	// hides data (data, scalar, meta) or keeps a value (keep, keepWhole), not
	// where it keeps the envelope and members exactly (same) or walks the
	// objects around them.
	content bool
}

// frame redacts a message, or each message of a batch.
func (w *walk) frame(n frame.Node) {
	if n.Kind() != '[' {
		w.message(n, 0)
		return
	}
	w.put('[')
	for i, kid := range n.Elements {
		if i > 0 {
			w.put(',')
		}
		if w.message(kid, 1); w.deep {
			return
		}
	}
	w.put(']')
}

// message redacts a JSON-RPC message: its envelope stays, params and result are
// walked, the error keeps its code and message.
func (w *walk) message(n frame.Node, depth int) {
	if depth > jsontree.MaxDepth {
		w.deep = true
		return
	}
	if n.Kind() != '{' {
		w.value(n, path{}, false, depth)
		return
	}
	w.put('{')
	i := 0
	for k, kid := range n.Members {
		w.name(i, k)
		i++
		switch k {
		case "jsonrpc", "id", "method":
			w.keep(kid, true, depth+1)
		case "error":
			if kid.Kind() != '{' {
				w.value(kid, path{}, false, depth+1)
				break
			}
			if depth+1 > jsontree.MaxDepth {
				w.deep = true
				return
			}
			w.put('{')
			j := 0
			for ek, ev := range kid.Members {
				w.name(j, ek)
				j++
				switch ek {
				case "code", "message":
					w.keep(ev, false, depth+2)
				default:
					w.value(ev, errorPath(ek), true, depth+2)
				}
				if w.deep {
					return
				}
			}
			w.put('}')
		default:
			w.value(kid, path{}.push(k), false, depth+1)
		}
		if w.deep {
			return
		}
	}
	w.put('}')
}

// value redacts the value at path p; inData is set below a member that holds
// data (arguments, structuredContent, ...).
func (w *walk) value(n frame.Node, p path, inData bool, depth int) {
	if inData {
		w.data(n, depth)
		return
	}
	if depth > jsontree.MaxDepth {
		w.deep = true
		return
	}
	kind := n.Kind()
	switch route(p, kind == '{' || kind == '[', kind == '[') {
	case routeSecret:
		w.secret = true
		w.scalar(n, kind, depth)
		w.secret = false
		return
	case routeKeep:
		w.keepWhole(n, depth)
		return
	case routeExact:
		w.keep(n, true, depth)
		return
	case routeMeta:
		w.meta(n, p, depth)
		return
	case routeData:
		if w.visit != nil && p.last == "instructions" {
			// Visiting, instructions are what the server publishes, as its
			// definitions are: kept (a report hides them, a copy keeps them).
			w.keep(n, false, depth)
			return
		}
		w.arguments = isArguments(p)
		w.data(n, depth)
		w.arguments = false
		return
	}
	switch kind {
	case '{':
		w.put('{')
		i := 0
		for k, kid := range n.Members {
			w.name(i, k)
			i++
			if w.value(kid, p.push(k), false, depth+1); w.deep {
				return
			}
		}
		w.put('}')
	case '[':
		w.put('[')
		for i, kid := range n.Elements {
			if i > 0 {
				w.put(',')
			}
			if w.value(kid, p.push(p.last), false, depth+1); w.deep {
				return
			}
		}
		w.put(']')
	default:
		w.scalar(n, kind, depth)
	}
}

// data redacts a value below a member that holds data: every string and number
// in it is hidden (booleans and null stay: they have no length to hide).
func (w *walk) data(n frame.Node, depth int) {
	w.content = true
	if depth > jsontree.MaxDepth {
		w.deep = true
		return
	}
	switch kind := n.Kind(); kind {
	case '{':
		w.put('{')
		i := 0
		for k, kid := range n.Members {
			w.name(i, k)
			i++
			// Visiting, a credential's member inside data is a secret (a
			// frame's data is hidden whole: there the name changes nothing).
			secret := w.visit != nil && !w.secret && isSecretName(k)
			w.secret = w.secret || secret
			w.data(kid, depth+1)
			if secret {
				w.secret = false
			}
			if w.deep {
				return
			}
		}
		w.put('}')
	case '[':
		w.put('[')
		for i, kid := range n.Elements {
			if i > 0 {
				w.put(',')
			}
			if w.data(kid, depth+1); w.deep {
				return
			}
		}
		w.put(']')
	default:
		w.scalar(n, kind, depth)
	}
}

// meta redacts a _meta object: the contract members it carries stay, a progress
// token stays exactly, the rest is data. A _meta that is not an object stays.
func (w *walk) meta(n frame.Node, p path, depth int) {
	w.content = true
	if kind := n.Kind(); kind != '{' {
		w.same(n, kind, depth)
		return
	}
	w.put('{')
	i := 0
	for mk, kid := range n.Members {
		w.name(i, mk)
		i++
		switch metaRoute(mk) {
		case routeKeep:
			w.keep(kid, false, depth+1)
		case routeExact:
			w.keep(kid, true, depth+1)
		default:
			w.value(kid, p.push(mk), true, depth+1)
		}
		if w.deep {
			return
		}
	}
	w.put('}')
}

// scalar replaces a string or number (of that kind) with its placeholder (or,
// collecting, adds its value to the set); other values stay.
func (w *walk) scalar(n frame.Node, kind byte, depth int) {
	if kind == '"' || kind == '0' {
		w.content = true
	}
	switch kind {
	case '"':
		if w.visit != nil {
			class := StringData
			if w.secret {
				class = StringSecret
			}
			w.visit(n, class)
			return
		}
		if w.collect {
			w.add(n)
			return
		}
		w.out = appendString(w.out, stringPlaceholder(stringChars(n)))
	case '0':
		if w.visit != nil {
			return
		}
		if w.collect {
			w.set.Add(view(n.Raw()))
			return
		}
		w.out = appendString(w.out, numberPlaceholder(len(n.Raw())))
	default:
		w.same(n, kind, depth)
	}
}

// add adds a string value to the set, decoded, with the forms of it the set
// keeps: without escapes, the value is the string's bytes; with the escapes
// encoding/json writes, its JSON form is (decodeJSON).
//
// A secret inside an argument (an api_key= in a URL, an "apiKey" member of JSON
// in a string) is added on its own too: a session echoes it alone.
func (w *walk) add(n frame.Node) {
	if !n.Escaped() {
		w.set.Add(str(n))
		if w.arguments {
			w.set.addInnerSecrets(str(n))
		}
		return
	}
	body := n.Bytes()
	if w.set.saturated() {
		return
	}
	if len(body) > MaxValue && !w.arguments {
		// Too long for a set, decoded or not: left out without decoding it,
		// before the check below, which a recorder's set never makes (its
		// record must say what this set does). The secrets inside an argument
		// are looked for, in its first bytes (addInnerSecrets).
		if at := decodedAtLeast(body); at > MaxValue {
			w.set.leaveOut(at, decodeHead(body))
			return
		}
	}
	if w.set.tooLong(len(body) / 6) {
		return // no room for a string this long (an escape is at most 6 bytes for a byte)
	}
	s, chars, goAlike, ok := decodeJSON(w.set.scratch, body)
	if ok {
		w.set.scratch = s
		w.set.addJSON(view(s), view(body), chars, goAlike)
		if w.arguments {
			w.set.addInnerSecrets(view(s))
		}
		return
	}
	v := str(n) // a string of its own: Str unescaped it
	w.set.Add(v)
	if w.arguments {
		w.set.addInnerSecrets(v)
	}
}

// keepWhole keeps a value that redaction keeps whole (a list of definitions, a
// capability object, a peer's name and version) at depth. Collecting with a
// memo, a value whose bytes added nothing to a set before, at the same depth, is
// not walked again: the same tool definitions, listed again in every session of
// a capture, are walked once. Collecting reads nothing but the value's bytes and
// its depth, so it would add nothing again.
func (w *walk) keepWhole(n frame.Node, depth int) {
	w.content = true
	raw := n.Raw()
	if !w.collect || w.visit != nil || w.memo == nil || len(raw) < minMemoBytes {
		w.keep(n, false, depth)
		return
	}
	k := w.memo.key(raw, depth)
	if _, ok := w.memo.clean[k]; ok {
		return
	}
	before := w.added
	w.added = false
	w.keep(n, false, depth)
	if !w.added && !w.deep {
		w.memo.remember(k)
	}
	w.added = w.added || before
}

// keep keeps a value, masking secret-looking strings and the values of members
// whose names say credential, and replacing the set's values in its strings.
//
// exact is set for what a frame keeps exactly as triage needs it (the envelope,
// ids, enumerations, counters): secrets are still masked, the set's values are
// not replaced in it, and nothing of it is collected (protocol values are not
// what a session echoes).
func (w *walk) keep(n frame.Node, exact bool, depth int) {
	if depth > jsontree.MaxDepth {
		w.deep = true
		return
	}
	kind := n.Kind()
	if w.collect && exact {
		w.same(n, kind, depth) // nothing to collect, but how deep it goes
		return
	}
	w.content = true
	switch kind {
	case '"':
		if w.visit != nil {
			w.visit(n, StringKept)
			return
		}
		if w.collect {
			// A secret found is masked: the text returned is another.
			if s := str(n); maskSecrets(s, w.set.addSecret) != s {
				w.added = true
			}
			return
		}
		s := str(n)
		var kept string
		if exact {
			kept = MaskSecrets(s) // the set's values are not replaced in it
		} else {
			kept = w.set.Hide(s)
		}
		if kept != s {
			w.out = appendString(w.out, kept)
		} else {
			w.out = append(w.out, n.Raw()...)
		}
	case '{':
		w.put('{')
		i := 0
		for k, kid := range n.Members {
			w.name(i, k)
			i++
			if kind := kid.Kind(); kind != '{' && kind != '[' && isSecretName(k) {
				if depth+1 > jsontree.MaxDepth {
					w.deep = true
					return
				}
				w.secret = true
				w.scalar(kid, kind, depth+1)
				w.secret = false
				w.added = w.added || kind == '"' || kind == '0'
			} else {
				w.keep(kid, exact, depth+1)
			}
			if w.deep {
				return
			}
		}
		w.put('}')
	case '[':
		w.put('[')
		for i, kid := range n.Elements {
			if i > 0 {
				w.put(',')
			}
			if w.keep(kid, exact, depth+1); w.deep {
				return
			}
		}
		w.put(']')
	default:
		w.same(n, kind, depth)
	}
}

// same writes a value (of that kind) as it is, compact (member names as
// encodeString writes them); collecting, it only looks how deep the value goes.
func (w *walk) same(n frame.Node, kind byte, depth int) {
	switch kind {
	case '{':
		if depth+1 > jsontree.MaxDepth && n.Len() > 0 {
			w.deep = true
			return
		}
		w.put('{')
		i := 0
		for k, kid := range n.Members {
			w.name(i, k)
			i++
			if w.same(kid, kid.Kind(), depth+1); w.deep {
				return
			}
		}
		w.put('}')
	case '[':
		if depth+1 > jsontree.MaxDepth && n.Len() > 0 {
			w.deep = true
			return
		}
		w.put('[')
		for i, kid := range n.Elements {
			if i > 0 {
				w.put(',')
			}
			if w.same(kid, kid.Kind(), depth+1); w.deep {
				return
			}
		}
		w.put(']')
	default:
		if !w.collect {
			w.out = append(w.out, n.Raw()...)
		}
	}
}

// put writes a byte of the redacted text (nothing when collecting).
func (w *walk) put(c byte) {
	if !w.collect {
		w.out = append(w.out, c)
	}
}

// name writes the i-th member name of an object (decoded, then encoded again as
// encodeString does), after a comma but for the first.
func (w *walk) name(i int, k string) {
	if w.collect {
		return
	}
	if i > 0 {
		w.out = append(w.out, ',')
	}
	if plainText(k) {
		w.out = append(w.out, '"')
		w.out = append(w.out, k...)
		w.out = append(w.out, '"', ':')
		return
	}
	w.out = appendString(w.out, validUTF8(k))
	w.out = append(w.out, ':')
}

// stringChars is the length of a string value in characters, decoded (a byte
// that is not UTF-8 counts as one, as the U+FFFD it decodes to).
func stringChars(n frame.Node) int {
	if !n.Escaped() {
		return utf8.RuneCount(n.Bytes())
	}
	s, _ := n.Str()
	return utf8.RuneCountInString(s)
}

// decodeHead decodes the start of a long string's bytes between its quotes
// (body): its first headRunes characters at least, escapes decoded, for the
// heads a set keeps of a value it leaves out (Set.leaveOut), without decoding
// the rest. A character takes 12 bytes at most (a surrogate pair, escaped):
// the bytes that hold headRunes of them are decoded as a cut string.
func decodeHead(body []byte) string {
	return decodeCutString(`"` + string(body[:min(len(body), 12*headRunes)]))
}
