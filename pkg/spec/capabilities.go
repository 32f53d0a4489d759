package spec

import (
	_ "embed"
	"fmt"
	"slices"
	"sync"
)

//go:embed data/capabilities.tsv
var capabilitiesTSV string

// Capability is one row of capabilities.tsv: a field of ClientCapabilities or
// ServerCapabilities at any nesting depth.
type Capability struct {
	Side      Side
	Path      string     // dotted path, without the client./server. prefix
	Type      string     // "object", "boolean" or "map<string,object>"
	Revisions []Revision // chronological order
	Gates     string     // free text: the messages or parameters the capability gates
	Note      string
}

// In reports whether the capability is defined by the schema of revision r.
func (c Capability) In(r Revision) bool {
	return slices.Contains(c.Revisions, r)
}

// String returns the capability's name as written in capabilities.tsv, such as
// "server.resources.listChanged".
func (c Capability) String() string {
	return c.Side.String() + "." + c.Path
}

// clone returns a copy of c that shares no memory with the table.
func (c Capability) clone() Capability {
	c.Revisions = slices.Clone(c.Revisions)
	return c
}

// capabilityKey identifies a capability row.
type capabilityKey struct {
	side Side
	path string
}

// capabilityIndex is the parsed, immutable capability table.
type capabilityIndex struct {
	rows  []Capability // file order
	byKey map[capabilityKey]int
}

// lookup returns the table's own row for side.path; the caller must not modify it.
func (t *capabilityIndex) lookup(side Side, path string) (*Capability, bool) {
	i, ok := t.byKey[capabilityKey{side, path}]
	if !ok {
		return nil, false
	}
	return &t.rows[i], true
}

// capabilityTable parses the embedded capability table on first use.
var capabilityTable = sync.OnceValue(func() *capabilityIndex {
	rows, err := parseCapabilityTable(capabilitiesTSV)
	panicIfMalformed("data/capabilities.tsv", err)
	idx := &capabilityIndex{rows: rows, byKey: make(map[capabilityKey]int, len(rows))}
	for i, c := range rows {
		idx.byKey[capabilityKey{c.Side, c.Path}] = i
	}
	return idx
})

// parseCapabilityTable parses a capability table with the columns capability, type,
// revisions, gates and note.
func parseCapabilityTable(data string) ([]Capability, error) {
	rows, err := readTSV(data, "capability", "type", "revisions", "gates", "note")
	if err != nil {
		return nil, err
	}
	seen := make(map[capabilityKey]int)
	var caps []Capability
	for _, row := range rows {
		f := row.fields
		fail := func(err error) ([]Capability, error) {
			return nil, fmt.Errorf("line %d (%s): %w", row.line, f[0], err)
		}
		side, path, err := parseSidePath(f[0])
		if err != nil {
			return fail(err)
		}
		if f[1] == "" {
			return fail(fmt.Errorf("empty type"))
		}
		revs, err := parseRevisionList(f[2])
		if err != nil {
			return fail(err)
		}
		k := capabilityKey{side, path}
		if prev, dup := seen[k]; dup {
			return fail(fmt.Errorf("already defined on line %d", prev))
		}
		seen[k] = row.line
		caps = append(caps, Capability{
			Side:      side,
			Path:      path,
			Type:      f[1],
			Revisions: revs,
			Gates:     f[3],
			Note:      f[4],
		})
	}
	return caps, nil
}

// Capabilities returns every row of capabilities.tsv in file order.
func Capabilities() []Capability {
	rows := capabilityTable().rows
	out := make([]Capability, len(rows))
	for i, c := range rows {
		out[i] = c.clone()
	}
	return out
}

// LookupCapability returns the row for side.path (path without the client./server.
// prefix). ok is false if no revision defines it.
func LookupCapability(side Side, path string) (Capability, bool) {
	c, ok := capabilityTable().lookup(side, path)
	if !ok {
		return Capability{}, false
	}
	return c.clone(), true
}

// CapabilityIn reports whether side.path is defined by the schema of revision r.
func CapabilityIn(side Side, path string, r Revision) bool {
	c, ok := capabilityTable().lookup(side, path)
	return ok && c.In(r)
}
