package trace

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// CapabilityRow is one row of the contract table: a capability that a side
// declared or that a message of the session needed.
type CapabilityRow struct {
	Side spec.Side
	Path string
	// Declared: the side declared it; Known: that side's declaration is in the
	// capture (else nothing can be judged).
	Declared bool
	Known    bool
	// Defined: the governing revision defines the capability (a declared member
	// it does not define is ignored by the peer).
	Defined bool
	// Uses are the messages of the session it gates, by method and direction.
	Uses []MethodUse
	// Undeclared counts the uses whose gate rules.Gates judged undeclared: the
	// row is broken (what MCP2001 and MCP2002 report), and the views
	// say so from this count, never by comparing Declared and Uses themselves.
	Undeclared int
}

// contractRows lists each capability that a side declared or that a message of the
// session needed, with who declared it and who used it.
func contractRows(contract *session.Contract, uses []MethodUse) []CapabilityRow {
	rev := contract.Revision
	// What reports show as declared: the capability objects that are valid JSON.
	c := &session.Contract{ClientCaps: validJSON(contract.ClientCaps), ServerCaps: validJSON(contract.ServerCaps)}
	var rows []CapabilityRow
	index := map[string]int{}
	add := func(side spec.Side, path string, defined bool) *CapabilityRow {
		key := side.String() + "." + path
		if i, ok := index[key]; ok {
			return &rows[i]
		}
		declared, known := c.DeclaresCapability(side, path)
		rows = append(rows, CapabilityRow{Side: side, Path: path, Declared: declared, Known: known, Defined: defined})
		index[key] = len(rows) - 1
		return &rows[len(rows)-1]
	}
	if rev != "" {
		for _, capa := range spec.Capabilities() {
			if !capa.In(rev) {
				continue
			}
			if declared, _ := c.DeclaresCapability(capa.Side, capa.Path); declared {
				add(capa.Side, capa.Path, true)
			}
		}
	}
	// Declared members the revision does not define.
	for _, side := range []spec.Side{spec.Client, spec.Server} {
		var obj map[string]json.RawMessage
		if json.Unmarshal(c.Capabilities(side), &obj) != nil {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if rev == "" || !spec.CapabilityIn(side, k, rev) {
				add(side, k, false)
				continue
			}
			if capa, _ := spec.LookupCapability(side, k); strings.HasPrefix(capa.Type, "map") {
				continue // experimental, extensions: free-form keys
			}
			var sub map[string]json.RawMessage
			if json.Unmarshal(obj[k], &sub) != nil {
				continue
			}
			for _, sk := range slices.Sorted(maps.Keys(sub)) {
				if !spec.CapabilityIn(side, k+"."+sk, rev) {
					add(side, k+"."+sk, false)
				}
			}
		}
	}
	if rev != "" {
		for _, u := range uses {
			facts, ok := spec.Facts(u.Method, rev, u.Dir)
			if !ok || facts.Gate.None() || facts.Gate.Extension != "" {
				continue
			}
			row := add(facts.Gate.Side, facts.Gate.Path, true)
			row.Uses = append(row.Uses, u)
			row.Undeclared += u.Undeclared
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].Side != rows[j].Side {
			return rows[i].Side == spec.Server
		}
		return rows[i].Path < rows[j].Path
	})
	return rows
}

func validJSON(b []byte) []byte {
	if len(b) == 0 || !json.Valid(b) {
		return nil
	}
	return b
}
