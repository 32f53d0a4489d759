package spec

import (
	_ "embed"
	"fmt"
	"slices"
	"sync"
)

// TasksExtension is the identifier of the official Tasks extension, the only
// extension whose methods this package knows (data/extension-methods.tsv).
const TasksExtension = "io.modelcontextprotocol/tasks"

var (
	//go:embed data/methods.tsv
	methodsTSV string
	//go:embed data/extension-methods.tsv
	extensionMethodsTSV string
)

// Method is one row of methods.tsv (or extension-methods.tsv, Extension set), with
// a "both" row expanded into one C2S and one S2C row.
type Method struct {
	Name string
	Kind Kind
	Dir  Direction
	// Revisions lists, in chronological order, the revisions the row applies to.
	Revisions []Revision
	// Gate is the capability that must have been declared before the message may
	// be sent; Gate.Side says whose. For requests it is the receiver's (the peer
	// that serves them); for notifications it can be the sender's own declaration
	// (server.tools.listChanged, server.logging) or the receiver's
	// (client.elicitation.url).
	Gate Gate
	// Note holds the preconditions and parameter-level gates that the method
	// name alone does not show, as free text.
	Note string
	// Extension is "" for core methods and the extension identifier
	// (TasksExtension) for extension rows.
	Extension string
}

// In reports whether the row applies to revision r.
func (m Method) In(r Revision) bool {
	return slices.Contains(m.Revisions, r)
}

// clone returns a copy of m that shares no memory with the table.
func (m Method) clone() Method {
	m.Revisions = slices.Clone(m.Revisions)
	return m
}

// methodIndex is the parsed, immutable method table.
type methodIndex struct {
	rows   []Method         // core rows, then extension rows, in file order
	byName map[string][]int // indexes into rows, in row order
	byRow  [][]int          // per row, its name's entry of byName
}

// methodTable parses the embedded method tables on first use.
var methodTable = sync.OnceValue(func() *methodIndex {
	core, err := parseMethodTable(methodsTSV, false)
	panicIfMalformed("data/methods.tsv", err)
	ext, err := parseMethodTable(extensionMethodsTSV, true)
	panicIfMalformed("data/extension-methods.tsv", err)
	idx := &methodIndex{
		rows:   slices.Concat(core, ext),
		byName: make(map[string][]int),
	}
	for i, m := range idx.rows {
		idx.byName[m.Name] = append(idx.byName[m.Name], i)
	}
	idx.byRow = make([][]int, len(idx.rows))
	for i, m := range idx.rows {
		idx.byRow[i] = idx.byName[m.Name]
	}
	return idx
})

// parseMethodTable parses a method table with the columns method, kind, direction,
// revisions, gate and note. Rows of an extension table must have an "ext:" gate,
// rows of the core table must not.
func parseMethodTable(data string, extension bool) ([]Method, error) {
	rows, err := readTSV(data, "method", "kind", "direction", "revisions", "gate", "note")
	if err != nil {
		return nil, err
	}
	type key struct {
		name string
		rev  Revision
		dir  Direction
	}
	seen := make(map[key]int)
	var methods []Method
	for _, row := range rows {
		f := row.fields
		fail := func(err error) ([]Method, error) {
			return nil, fmt.Errorf("line %d (%s): %w", row.line, f[0], err)
		}
		if f[0] == "" {
			return fail(fmt.Errorf("empty method name"))
		}
		kind, err := parseKind(f[1])
		if err != nil {
			return fail(err)
		}
		dirs, err := parseDirections(f[2])
		if err != nil {
			return fail(err)
		}
		revs, err := parseRevisionList(f[3])
		if err != nil {
			return fail(err)
		}
		gate, err := parseGate(f[4])
		if err != nil {
			return fail(err)
		}
		switch {
		case extension && gate.Extension == "":
			return fail(fmt.Errorf("extension method has gate %q, want an %q gate", f[4], extGatePrefix))
		case !extension && gate.Extension != "":
			return fail(fmt.Errorf("core method has extension gate %q", f[4]))
		}
		for _, dir := range dirs {
			for _, r := range revs {
				k := key{f[0], r, dir}
				if prev, dup := seen[k]; dup {
					return fail(fmt.Errorf("%s %s already defined on line %d", r, dir, prev))
				}
				seen[k] = row.line
			}
			methods = append(methods, Method{
				Name:      f[0],
				Kind:      kind,
				Dir:       dir,
				Revisions: slices.Clone(revs),
				Gate:      gate,
				Note:      f[5],
				Extension: gate.Extension,
			})
		}
	}
	return methods, nil
}

// Methods returns every expanded row: the core rows, then the extension rows, each
// in file order.
func Methods() []Method {
	rows := methodTable().rows
	out := make([]Method, len(rows))
	for i, m := range rows {
		out[i] = m.clone()
	}
	return out
}

// LookupMethod returns the row for method name sent in direction d under revision
// r, searching core rows first, then extension rows. ok is false if the method does
// not exist there.
func LookupMethod(name string, r Revision, d Direction) (Method, bool) {
	t := methodTable()
	for _, i := range t.byName[name] {
		if m := &t.rows[i]; m.Dir == d && m.In(r) {
			return m.clone(), true
		}
	}
	return Method{}, false
}

// MethodRows returns every row for name, in any revision or direction, or nil if
// the name is unknown.
func MethodRows(name string) []Method {
	t := methodTable()
	var out []Method
	for _, i := range t.byName[name] {
		out = append(out, t.rows[i].clone())
	}
	return out
}

// KnownMethod reports whether name appears in any row.
func KnownMethod(name string) bool { return Resolve(name).Known() }

// MethodRef is a method name resolved against the method table once (Resolve): what
// the hot path asks of a message's method (known, gated, its facts in a revision
// and direction) without looking the name up again for each question.
type MethodRef struct {
	rows []int // indexes into the table's rows, in row order; nil for an unknown name
}

// Resolve looks a method name up in the table.
func Resolve(name string) MethodRef { return MethodRef{rows: methodTable().byName[name]} }

// Index identifies the method's name among the table's names: the same number for
// every reference to one name, -1 for an unknown name (a key cheaper than the name).
func (r MethodRef) Index() int {
	if len(r.rows) == 0 {
		return -1
	}
	return r.rows[0]
}

// MethodAt is the MethodRef whose Index is i (what Resolve gives for its name,
// without hashing the name): the zero MethodRef when no method has that index.
func MethodAt(i int) MethodRef {
	t := methodTable()
	if i < 0 || i >= len(t.byRow) || t.byRow[i][0] != i {
		return MethodRef{}
	}
	return MethodRef{rows: t.byRow[i]}
}

// MethodIndexes is the number every MethodRef.Index is below: a table indexed
// by method (one slot per row; a name's slot is its first row's).
func MethodIndexes() int { return len(methodTable().rows) }

// Known reports whether the name appears in any row.
func (r MethodRef) Known() bool { return len(r.rows) > 0 }

// Name is the method's name as the table holds it ("" for an unknown name): a
// string that lives as long as the program, which a record kept past its frame
// can hold instead of a copy.
func (r MethodRef) Name() string {
	if len(r.rows) == 0 {
		return ""
	}
	return methodTable().rows[r.rows[0]].Name
}

// DirectionIn returns the single direction in which method name is sent under
// revision r. ok is false when the method does not exist in r or is sent in both
// directions there. With r == "" it answers across all revisions, and ok is false if
// the directions differ between rows.
func DirectionIn(name string, r Revision) (Direction, bool) { return Resolve(name).DirectionIn(r) }

// DirectionIn is DirectionIn of the method's name, without looking it up again.
func (ref MethodRef) DirectionIn(r Revision) (Direction, bool) {
	t := methodTable()
	dir := DirUnknown
	for _, i := range ref.rows {
		m := &t.rows[i]
		if r != "" && !m.In(r) {
			continue
		}
		if dir != DirUnknown && dir != m.Dir {
			return DirUnknown, false
		}
		dir = m.Dir
	}
	return dir, dir != DirUnknown
}

// RevisionsOf returns, in chronological order, the revisions in which method name
// exists in direction d, whatever its kind. It returns nil if there are none.
func RevisionsOf(name string, d Direction) []Revision {
	t := methodTable()
	var out []Revision
	for _, r := range allRevisions {
		for _, i := range t.byName[name] {
			if m := &t.rows[i]; m.Dir == d && m.In(r) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// MethodFacts is what the hot path needs of a row, without copying it.
type MethodFacts struct {
	Kind      Kind
	Gate      Gate
	Extension string
}

// Facts is LookupMethod without the copy of the row's revision list: the kind,
// gate and extension of the method sent in direction d under revision r.
func Facts(name string, r Revision, d Direction) (MethodFacts, bool) {
	return Resolve(name).Facts(r, d)
}

// Facts is the package's Facts for the resolved name.
func (ref MethodRef) Facts(r Revision, d Direction) (MethodFacts, bool) {
	t := methodTable()
	for _, i := range ref.rows {
		if m := &t.rows[i]; m.Dir == d && m.In(r) {
			return MethodFacts{Kind: m.Kind, Gate: m.Gate, Extension: m.Extension}, true
		}
	}
	return MethodFacts{}, false
}

// GatedAnywhere reports whether a method needs a capability in some revision.
func GatedAnywhere(name string) bool { return Resolve(name).GatedAnywhere() }

// GatedAnywhere is the package's GatedAnywhere for the resolved name.
func (ref MethodRef) GatedAnywhere() bool {
	t := methodTable()
	for _, i := range ref.rows {
		if !t.rows[i].Gate.None() {
			return true
		}
	}
	return false
}
