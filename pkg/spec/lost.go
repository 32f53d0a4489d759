package spec

import "strings"

// Losses is what one revision lacks of another, derived from the method and
// capability tables (nothing kept by hand): what a session negotiated down to To
// must not use although From has it.
type Losses struct {
	// Methods are the core methods From has and To lacks, in table order, with
	// who sends them. A method that To keeps under another kind (a 2025-11-25
	// request that 2026-07-28 carries as an input request) is lost as what it was.
	Methods []LostMethod
	// Batching is set when From has JSON-RPC batching and To does not.
	Batching bool
	// Capabilities are the capability fields From defines and To does not, in
	// table order, leaving out fields whose parent is listed already.
	Capabilities []Capability
}

// LostMethod is a method a revision lacks, with the sides that send it.
type LostMethod struct {
	Name   string
	Kind   Kind
	Client bool // sent by the client (c2s)
	Server bool // sent by the server (s2c)
}

// Lost lists what revision to lacks of revision from.
func Lost(from, to Revision) Losses {
	var l Losses
	byName := map[string]int{}
	t := methodTable()
	for i := range t.rows {
		row := &t.rows[i]
		if row.Extension != "" || !row.In(from) || hasMethod(row.Name, to, row.Dir, row.Kind) {
			continue
		}
		j, ok := byName[row.Name]
		if !ok {
			j = len(l.Methods)
			byName[row.Name] = j
			l.Methods = append(l.Methods, LostMethod{Name: row.Name, Kind: row.Kind})
		}
		if row.Dir == C2S {
			l.Methods[j].Client = true
		} else {
			l.Methods[j].Server = true
		}
	}
	l.Batching = from.Batching() && !to.Batching()
	for _, c := range capabilityTable().rows {
		if !c.In(from) || c.In(to) {
			continue
		}
		covered := false
		for _, parent := range l.Capabilities {
			if parent.Side == c.Side && strings.HasPrefix(c.Path, parent.Path+".") {
				covered = true
				break
			}
		}
		if !covered {
			l.Capabilities = append(l.Capabilities, c.clone())
		}
	}
	return l
}

// hasMethod reports whether revision r has method name sent in direction d as kind k.
func hasMethod(name string, r Revision, d Direction, k Kind) bool {
	t := methodTable()
	for _, i := range t.byName[name] {
		if m := &t.rows[i]; m.Dir == d && m.Kind == k && m.In(r) {
			return true
		}
	}
	return false
}
