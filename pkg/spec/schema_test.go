package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// schemaNode is the part of a JSON Schema node the cross-checks need.
type schemaNode struct {
	Ref        string                 `json:"$ref"`
	AnyOf      []*schemaNode          `json:"anyOf"`
	Type       any                    `json:"type"`
	Properties map[string]*schemaNode `json:"properties"`
	Const      any                    `json:"const"`
	Enum       []any                  `json:"enum"`
}

// schemaDoc is a decoded schema.json: draft-07 files use "definitions", 2020-12
// files "$defs".
type schemaDoc struct {
	rev  Revision
	defs map[string]*schemaNode
}

func loadSchema(t *testing.T, r Revision) schemaDoc {
	t.Helper()
	data := Schema(r)
	if data == nil {
		t.Fatalf("Schema(%q) = nil", r)
	}
	var raw struct {
		Definitions map[string]*schemaNode `json:"definitions"`
		Defs        map[string]*schemaNode `json:"$defs"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("Schema(%q): %v", r, err)
	}
	if (raw.Definitions == nil) == (raw.Defs == nil) {
		t.Fatalf("Schema(%q): want exactly one of definitions and $defs", r)
	}
	if raw.Definitions != nil {
		return schemaDoc{r, raw.Definitions}
	}
	return schemaDoc{r, raw.Defs}
}

// resolve follows a local $ref ("#/definitions/X" or "#/$defs/X").
func (d schemaDoc) resolve(n *schemaNode) (*schemaNode, error) {
	for seen := 0; n.Ref != ""; seen++ {
		if seen > 10 {
			return nil, fmt.Errorf("%s: $ref chain too long at %q", d.rev, n.Ref)
		}
		name, ok := strings.CutPrefix(n.Ref, "#/definitions/")
		if !ok {
			name, ok = strings.CutPrefix(n.Ref, "#/$defs/")
		}
		target := d.defs[name]
		if !ok || target == nil {
			return nil, fmt.Errorf("%s: unresolvable $ref %q", d.rev, n.Ref)
		}
		n = target
	}
	return n, nil
}

// methodName returns properties.method's single allowed value: a const, or an enum
// with one member.
func methodName(n *schemaNode) (string, bool) {
	m := n.Properties["method"]
	if m == nil {
		return "", false
	}
	if s, ok := m.Const.(string); ok {
		return s, true
	}
	if len(m.Enum) == 1 {
		s, ok := m.Enum[0].(string)
		return s, ok
	}
	return "", false
}

// unionMethods returns the method names of a message union: the method of every
// anyOf member (following $refs and nested unions), or the node's own method when
// the generator collapsed a one-member union into the member itself.
func (d schemaDoc) unionMethods(n *schemaNode) ([]string, error) {
	n, err := d.resolve(n)
	if err != nil {
		return nil, err
	}
	if name, ok := methodName(n); ok {
		return []string{name}, nil
	}
	if len(n.AnyOf) == 0 {
		return nil, fmt.Errorf("%s: node is neither a message with a single method nor an anyOf union", d.rev)
	}
	var names []string
	for _, member := range n.AnyOf {
		sub, err := d.unionMethods(member)
		if err != nil {
			return nil, err
		}
		names = append(names, sub...)
	}
	return names, nil
}

func TestSchema(t *testing.T) {
	for _, r := range Revisions() {
		doc := loadSchema(t, r)
		legacyDialect := r.Before(Rev20251125)
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(Schema(r), &raw); err != nil {
			t.Fatalf("Schema(%q): %v", r, err)
		}
		key := "$defs"
		if legacyDialect {
			key = "definitions"
		}
		if _, ok := raw[key]; !ok {
			t.Errorf("Schema(%q) has no %q", r, key)
		}
		for _, def := range []string{"ClientRequest", "ClientNotification", "ServerNotification", "ClientCapabilities", "ServerCapabilities"} {
			if doc.defs[def] == nil {
				t.Errorf("Schema(%q) does not define %s", r, def)
			}
		}
	}
	if Schema(RevDraft) == nil || !bytes.Equal(Schema(RevDraft), Schema(Rev20260728)) {
		t.Error("the draft schema should equal the 2026-07-28 schema at the pinned commit")
	}
	for _, r := range []Revision{"", "2099-01-01", "Draft"} {
		if got := Schema(r); got != nil {
			t.Errorf("Schema(%q) returned %d bytes, want nil", r, len(got))
		}
	}
	s := Schema(Rev20241105)
	s[0] = 'X'
	if Schema(Rev20241105)[0] == 'X' {
		t.Error("modifying the result of Schema changed the embedded data")
	}
	if lic := SchemaLicense(); !bytes.Contains(lic, []byte("Apache License")) || !bytes.Contains(lic, []byte("MIT")) {
		t.Error("SchemaLicense() does not contain both the Apache-2.0 and MIT texts")
	}
}

// messageTuple is one (method, revision, direction, kind) fact.
type messageTuple struct {
	method string
	rev    Revision
	dir    Direction
	kind   Kind
}

func (m messageTuple) String() string {
	return fmt.Sprintf("%s %s %s %s", m.rev, m.dir, m.kind, m.method)
}

func TestMethodTableMatchesSchemas(t *testing.T) {
	unions := []struct {
		def  string
		dir  Direction
		kind Kind
	}{
		{"ClientRequest", C2S, KindRequest},
		{"ServerRequest", S2C, KindRequest},
		{"ClientNotification", C2S, KindNotification},
		{"ServerNotification", S2C, KindNotification},
		// 2026-07-28 and draft: the requests a server may embed in an
		// InputRequiredResult instead of sending them over JSON-RPC.
		{"InputRequest", S2C, KindInputRequest},
	}
	fromSchema := make(map[messageTuple]bool)
	for _, r := range Revisions() {
		doc := loadSchema(t, r)
		for _, u := range unions {
			node := doc.defs[u.def]
			if node == nil {
				if u.def == "ClientRequest" || (u.def == "InputRequest" && r.Modern()) {
					t.Errorf("%s: schema has no %s", r, u.def)
				}
				continue
			}
			names, err := doc.unionMethods(node)
			if err != nil {
				t.Errorf("%s: %s: %v", r, u.def, err)
				continue
			}
			for _, name := range names {
				fromSchema[messageTuple{name, r, u.dir, u.kind}] = true
			}
		}
	}
	if len(fromSchema) == 0 {
		t.Fatal("collected no methods from the schemas")
	}

	fromTable := make(map[messageTuple]bool)
	var extensionInSchema []string
	for _, m := range Methods() {
		for _, r := range m.Revisions {
			tuple := messageTuple{m.Name, r, m.Dir, m.Kind}
			if m.Extension != "" {
				if fromSchema[tuple] {
					extensionInSchema = append(extensionInSchema, tuple.String())
				}
				continue
			}
			fromTable[tuple] = true
		}
	}

	var missingFromTable, missingFromSchema []string
	for tuple := range fromSchema {
		if !fromTable[tuple] {
			missingFromTable = append(missingFromTable, tuple.String())
		}
	}
	for tuple := range fromTable {
		if !fromSchema[tuple] {
			missingFromSchema = append(missingFromSchema, tuple.String())
		}
	}
	slices.Sort(missingFromTable)
	slices.Sort(missingFromSchema)
	slices.Sort(extensionInSchema)
	if len(missingFromTable) > 0 {
		t.Errorf("in the schemas but not in methods.tsv:\n\t%s", strings.Join(missingFromTable, "\n\t"))
	}
	if len(missingFromSchema) > 0 {
		t.Errorf("in methods.tsv but not in the schemas:\n\t%s", strings.Join(missingFromSchema, "\n\t"))
	}
	if len(extensionInSchema) > 0 {
		t.Errorf("extension rows that the core schema defines (should be core rows):\n\t%s", strings.Join(extensionInSchema, "\n\t"))
	}
	t.Logf("%d (method, revision, direction, kind) tuples agree", len(fromTable))
}

// capabilityFact is one capability field of one revision.
type capabilityFact struct {
	name    string // "client.roots.listChanged"
	rev     Revision
	boolean bool
}

func (c capabilityFact) String() string {
	kind := "object"
	if c.boolean {
		kind = "boolean"
	}
	return fmt.Sprintf("%s %s (%s)", c.rev, c.name, kind)
}

// collectCapabilities adds every property under n, at every depth, to facts.
func (d schemaDoc) collectCapabilities(n *schemaNode, prefix string, facts map[capabilityFact]bool) error {
	n, err := d.resolve(n)
	if err != nil {
		return err
	}
	for name, prop := range n.Properties {
		resolved, err := d.resolve(prop)
		if err != nil {
			return err
		}
		facts[capabilityFact{prefix + name, d.rev, resolved.Type == "boolean"}] = true
		if err := d.collectCapabilities(resolved, prefix+name+".", facts); err != nil {
			return err
		}
	}
	return nil
}

func TestCapabilityTableMatchesSchemas(t *testing.T) {
	fromSchema := make(map[capabilityFact]bool)
	for _, r := range Revisions() {
		doc := loadSchema(t, r)
		for _, side := range []Side{Client, Server} {
			def := "ClientCapabilities"
			if side == Server {
				def = "ServerCapabilities"
			}
			if err := doc.collectCapabilities(doc.defs[def], side.String()+".", fromSchema); err != nil {
				t.Errorf("%s: %s: %v", r, def, err)
			}
		}
	}
	fromTable := make(map[capabilityFact]bool)
	for _, c := range Capabilities() {
		for _, r := range c.Revisions {
			fromTable[capabilityFact{c.String(), r, c.Type == "boolean"}] = true
		}
	}
	var missingFromTable, missingFromSchema []string
	for f := range fromSchema {
		if !fromTable[f] {
			missingFromTable = append(missingFromTable, f.String())
		}
	}
	for f := range fromTable {
		if !fromSchema[f] {
			missingFromSchema = append(missingFromSchema, f.String())
		}
	}
	slices.Sort(missingFromTable)
	slices.Sort(missingFromSchema)
	if len(missingFromTable) > 0 {
		t.Errorf("in the schemas but not in capabilities.tsv:\n\t%s", strings.Join(missingFromTable, "\n\t"))
	}
	if len(missingFromSchema) > 0 {
		t.Errorf("in capabilities.tsv but not in the schemas:\n\t%s", strings.Join(missingFromSchema, "\n\t"))
	}
}
