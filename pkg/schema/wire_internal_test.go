package schema

import (
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// TestEveryDefinitionCompiles compiles every definition of every revision (and the
// Tool members that hold a published schema): definitions are compiled on first
// use, so a definition that cannot compile would otherwise show only on the first
// capture that uses it.
func TestEveryDefinitionCompiles(t *testing.T) {
	for _, rev := range spec.Revisions() {
		w, err := For(rev)
		if err != nil {
			t.Fatalf("%s: %v", rev, err)
		}
		for name := range w.doc.defs {
			s, err := w.schema(name)
			if err != nil || s == nil {
				t.Errorf("%s %s: compiled %v, %v", rev, name, s, err)
			}
		}
		for _, member := range toolSchemaMembers {
			if _, defined := w.doc.ToolSchema(member); !defined {
				continue
			}
			if s, err := w.schema(toolSchemaDefinition(member)); err != nil || s == nil {
				t.Errorf("%s Tool.%s: compiled %v, %v", rev, member, s, err)
			}
		}
		if s, err := w.schema("NoSuchDefinition"); s != nil || err != nil {
			t.Errorf("%s: an absent definition gives %v, %v; want nil, nil", rev, s, err)
		}
	}
}
