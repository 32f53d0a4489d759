package spec

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestEmbeddedMethodTablesParse(t *testing.T) {
	tests := []struct {
		file      string
		data      string
		extension bool
	}{
		{"data/methods.tsv", methodsTSV, false},
		{"data/extension-methods.tsv", extensionMethodsTSV, true},
	}
	for _, tt := range tests {
		methods, err := parseMethodTable(tt.data, tt.extension)
		if err != nil {
			t.Errorf("%s: %v", tt.file, err)
			continue
		}
		// Every data line yields one row, or two for direction "both".
		want := 0
		for _, line := range strings.Split(strings.TrimSpace(tt.data), "\n")[1:] {
			want++
			if strings.Split(line, "\t")[2] == "both" {
				want++
			}
		}
		if len(methods) != want {
			t.Errorf("%s: %d expanded rows, want %d", tt.file, len(methods), want)
		}
		for _, m := range methods {
			if (m.Extension != "") != tt.extension {
				t.Errorf("%s: %s %s has Extension %q", tt.file, m.Name, m.Dir, m.Extension)
			}
		}
	}
}

func TestParseMethodTableRejectsMalformedRows(t *testing.T) {
	const header = "method\tkind\tdirection\trevisions\tgate\tnote\n"
	tests := []struct {
		name      string
		data      string
		extension bool
	}{
		{"empty", "", false},
		{"wrong header", "method\tkind\tdir\trevisions\tgate\tnote\n", false},
		{"too few fields", header + "ping\trequest\tboth\t2024-11-05\tnone\n", false},
		{"too many fields", header + "ping\trequest\tboth\t2024-11-05\tnone\tnote\textra\n", false},
		{"empty name", header + "\trequest\tc2s\t2024-11-05\tnone\t\n", false},
		{"unknown kind", header + "ping\tcall\tc2s\t2024-11-05\tnone\t\n", false},
		{"unknown direction", header + "ping\trequest\tup\t2024-11-05\tnone\t\n", false},
		{"unknown revision", header + "ping\trequest\tc2s\t2024-11-05,2024-12-01\tnone\t\n", false},
		{"empty revisions", header + "ping\trequest\tc2s\t\tnone\t\n", false},
		{"repeated revision", header + "ping\trequest\tc2s\tdraft,draft\tnone\t\n", false},
		{"bad gate", header + "ping\trequest\tc2s\t2024-11-05\tpeer.tools\t\n", false},
		{"extension gate in core table", header + "tasks/get\trequest\tc2s\tdraft\text:x/y\t\n", false},
		{"core gate in extension table", header + "tasks/get\trequest\tc2s\tdraft\tserver.tasks\t\n", true},
		{"no gate in extension table", header + "tasks/get\trequest\tc2s\tdraft\tnone\t\n", true},
		{"duplicate key", header +
			"ping\trequest\tboth\t2024-11-05\tnone\t\n" +
			"ping\tnotification\ts2c\t2024-11-05\tnone\t\n", false},
	}
	for _, tt := range tests {
		if got, err := parseMethodTable(tt.data, tt.extension); err == nil {
			t.Errorf("%s: parseMethodTable returned %d rows and no error", tt.name, len(got))
		}
	}
}

func TestPanicIfMalformed(t *testing.T) {
	panicIfMalformed("data/ok.tsv", nil) // must not panic
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "data/methods.tsv") || !strings.Contains(msg, "line 3") {
			t.Errorf("panic message %q does not name the file and the error", msg)
		}
	}()
	panicIfMalformed("data/methods.tsv", fmt.Errorf("line 3: bad"))
	t.Error("panicIfMalformed did not panic on an error")
}

func TestMethodsOrderAndKeys(t *testing.T) {
	methods := Methods()
	if len(methods) == 0 {
		t.Fatal("Methods() is empty")
	}
	type key struct {
		name string
		rev  Revision
		dir  Direction
	}
	seen := make(map[key]Method)
	inExtension := false
	for _, m := range methods {
		if m.Extension != "" {
			inExtension = true
		} else if inExtension {
			t.Errorf("core row %s %s follows an extension row", m.Name, m.Dir)
		}
		if m.Dir != C2S && m.Dir != S2C {
			t.Errorf("%s has direction %v", m.Name, m.Dir)
		}
		if !slices.IsSortedFunc(m.Revisions, func(a, b Revision) int { return a.order() - b.order() }) {
			t.Errorf("%s %s revisions %v are not in chronological order", m.Name, m.Dir, m.Revisions)
		}
		for _, r := range m.Revisions {
			k := key{m.Name, r, m.Dir}
			if prev, dup := seen[k]; dup {
				t.Errorf("%s %s %s defined twice (extension %q and %q)", m.Name, r, m.Dir, prev.Extension, m.Extension)
			}
			seen[k] = m
		}
	}
	if !inExtension {
		t.Error("Methods() has no extension rows")
	}
	methods[0].Revisions[0] = "mutated"
	methods[0].Name = "mutated"
	if again := Methods(); again[0].Revisions[0] == "mutated" || again[0].Name == "mutated" {
		t.Error("modifying the result of Methods changed the table")
	}
}

func TestMethodKindsByRevision(t *testing.T) {
	for _, m := range Methods() {
		for _, r := range m.Revisions {
			if m.Kind == KindInputRequest && !r.Modern() {
				t.Errorf("%s is an input request in legacy revision %s", m.Name, r)
			}
			if m.Kind == KindRequest && m.Dir == S2C && r.Modern() {
				t.Errorf("%s is a server-to-client JSON-RPC request in modern revision %s", m.Name, r)
			}
		}
	}
}

func TestMethodGatesAreDefinedCapabilities(t *testing.T) {
	for _, m := range Methods() {
		g := m.Gate
		if g.None() || g.Extension != "" {
			continue
		}
		// A request needs a capability of the peer that must serve it. Notifications
		// may be gated either way: list_changed on the sender's own declaration,
		// notifications/elicitation/complete on the receiver's.
		if m.Kind != KindNotification && g.Side != Receiver(m.Dir) {
			t.Errorf("%s %s %s is gated on %s, a capability of the sender", m.Kind, m.Name, m.Dir, g)
		}
		for _, r := range m.Revisions {
			if !CapabilityIn(g.Side, g.Path, r) {
				t.Errorf("%s %s %s is gated on %s, which %s does not define", m.Name, r, m.Dir, g, r)
			}
		}
	}
}

func TestLookupMethod(t *testing.T) {
	tests := []struct {
		name      string
		rev       Revision
		dir       Direction
		wantOK    bool
		wantKind  Kind
		wantGate  string
		wantExt   string
		wantInRev bool
	}{
		{"ping", Rev20251125, C2S, true, KindRequest, "none", "", true},
		{"ping", Rev20251125, S2C, true, KindRequest, "none", "", true},
		{"ping", Rev20260728, C2S, false, 0, "", "", false},
		{"elicitation/create", Rev20250618, S2C, true, KindRequest, "client.elicitation", "", true},
		{"elicitation/create", Rev20250326, S2C, false, 0, "", "", false},
		{"elicitation/create", Rev20250618, C2S, false, 0, "", "", false},
		{"sampling/createMessage", Rev20260728, S2C, true, KindInputRequest, "client.sampling", "", true},
		{"sampling/createMessage", Rev20251125, S2C, true, KindRequest, "client.sampling", "", true},
		{"roots/list", RevDraft, S2C, true, KindInputRequest, "client.roots", "", true},
		{"tasks/get", Rev20260728, C2S, true, KindRequest, "ext:io.modelcontextprotocol/tasks", TasksExtension, true},
		{"tasks/get", Rev20251125, C2S, true, KindRequest, "server.tasks", "", true},
		{"tasks/get", Rev20251125, S2C, true, KindRequest, "client.tasks", "", true},
		{"tasks/get", Rev20260728, S2C, false, 0, "", "", false},
		{"tasks/update", RevDraft, C2S, true, KindRequest, "ext:io.modelcontextprotocol/tasks", TasksExtension, true},
		{"notifications/tasks", Rev20260728, S2C, true, KindNotification, "ext:io.modelcontextprotocol/tasks", TasksExtension, true},
		{"completion/complete", Rev20241105, C2S, true, KindRequest, "none", "", true},
		{"completion/complete", Rev20250326, C2S, true, KindRequest, "server.completions", "", true},
		{"notifications/resources/list_changed", Rev20241105, S2C, true, KindNotification, "server.resources.listChanged", "", true},
		{"notifications/cancelled", Rev20260728, S2C, true, KindNotification, "none", "", true},
		{"tools/list", Rev20250618, S2C, false, 0, "", "", false},
		{"tools/list", Rev20250618, DirUnknown, false, 0, "", "", false},
		{"tools/call", "2099-01-01", C2S, false, 0, "", "", false},
		{"tools/call", "", C2S, false, 0, "", "", false},
		{"no/such", Rev20250618, C2S, false, 0, "", "", false},
	}
	for _, tt := range tests {
		m, ok := LookupMethod(tt.name, tt.rev, tt.dir)
		label := fmt.Sprintf("LookupMethod(%q, %q, %v)", tt.name, tt.rev, tt.dir)
		if ok != tt.wantOK {
			t.Errorf("%s ok = %v, want %v", label, ok, tt.wantOK)
			continue
		}
		if !ok {
			if m.Name != "" {
				t.Errorf("%s = %+v with ok=false, want the zero Method", label, m)
			}
			continue
		}
		if m.Name != tt.name || m.Dir != tt.dir || m.Kind != tt.wantKind || m.Gate.String() != tt.wantGate ||
			m.Extension != tt.wantExt || m.In(tt.rev) != tt.wantInRev {
			t.Errorf("%s = {Name %q Dir %v Kind %v Gate %v Extension %q In %v}, want {%q %v %v %s %q %v}",
				label, m.Name, m.Dir, m.Kind, m.Gate, m.Extension, m.In(tt.rev),
				tt.name, tt.dir, tt.wantKind, tt.wantGate, tt.wantExt, tt.wantInRev)
		}
	}
}

func TestDirectionIn(t *testing.T) {
	tests := []struct {
		name   string
		rev    Revision
		want   Direction
		wantOK bool
	}{
		{"tools/list", "", C2S, true},
		{"tools/list", Rev20241105, C2S, true},
		{"tools/list", RevDraft, C2S, true},
		{"ping", "", DirUnknown, false},
		{"ping", Rev20251125, DirUnknown, false},
		{"ping", Rev20260728, DirUnknown, false},
		{"notifications/tools/list_changed", "", S2C, true},
		{"notifications/cancelled", Rev20260728, DirUnknown, false},
		{"notifications/progress", Rev20260728, S2C, true},
		{"notifications/progress", Rev20250618, DirUnknown, false},
		{"notifications/progress", "", DirUnknown, false},
		{"notifications/tasks/status", Rev20251125, DirUnknown, false},
		{"roots/list", "", S2C, true},
		{"elicitation/create", Rev20250326, DirUnknown, false},
		{"tasks/get", Rev20260728, C2S, true},
		{"tasks/get", "", DirUnknown, false},
		{"server/discover", "", C2S, true},
		{"no/such", "", DirUnknown, false},
		{"tools/list", "2099-01-01", DirUnknown, false},
	}
	for _, tt := range tests {
		got, ok := DirectionIn(tt.name, tt.rev)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("DirectionIn(%q, %q) = (%v, %v), want (%v, %v)", tt.name, tt.rev, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestRevisionsOf(t *testing.T) {
	legacy := []Revision{Rev20241105, Rev20250326, Rev20250618, Rev20251125}
	tests := []struct {
		name string
		dir  Direction
		want []Revision
	}{
		{"elicitation/create", S2C, []Revision{Rev20250618, Rev20251125, Rev20260728, RevDraft}},
		{"elicitation/create", C2S, nil},
		{"ping", S2C, legacy},
		{"notifications/progress", S2C, Revisions()},
		{"notifications/progress", C2S, legacy},
		{"completion/complete", C2S, Revisions()},
		{"tasks/get", C2S, []Revision{Rev20251125, Rev20260728, RevDraft}},
		{"tasks/get", S2C, []Revision{Rev20251125}},
		{"notifications/elicitation/complete", S2C, []Revision{Rev20251125}},
		{"tools/list", S2C, nil},
		{"no/such", C2S, nil},
	}
	for _, tt := range tests {
		if got := RevisionsOf(tt.name, tt.dir); !slices.Equal(got, tt.want) {
			t.Errorf("RevisionsOf(%q, %v) = %v, want %v", tt.name, tt.dir, got, tt.want)
		}
	}
}

func TestMethodRowsAndKnownMethod(t *testing.T) {
	tests := []struct {
		name     string
		wantRows int
	}{
		{"notifications/cancelled", 4}, // "both" legacy row expanded, plus one c2s and one s2c modern row
		{"ping", 2},
		{"completion/complete", 2},
		{"tasks/get", 3}, // two core rows, one extension row
		{"tasks/update", 1},
		{"server/discover", 1},
		{"no/such", 0},
		{"", 0},
	}
	for _, tt := range tests {
		rows := MethodRows(tt.name)
		if len(rows) != tt.wantRows {
			t.Errorf("MethodRows(%q) has %d rows, want %d", tt.name, len(rows), tt.wantRows)
		}
		if tt.wantRows == 0 && rows != nil {
			t.Errorf("MethodRows(%q) = %v, want nil", tt.name, rows)
		}
		for _, m := range rows {
			if m.Name != tt.name {
				t.Errorf("MethodRows(%q) returned a row for %q", tt.name, m.Name)
			}
		}
		if got := KnownMethod(tt.name); got != (tt.wantRows > 0) {
			t.Errorf("KnownMethod(%q) = %v, want %v", tt.name, got, tt.wantRows > 0)
		}
	}
}

// TestFactsAgreeWithLookup checks Facts (a name resolved once, MethodRef) against
// LookupMethod in every revision and direction, where the method exists and where not.
func TestFactsAgreeWithLookup(t *testing.T) {
	names := []string{"no/such/method", "tools/list "}
	for _, m := range Methods() {
		names = append(names, m.Name)
	}
	for _, name := range names {
		for _, r := range allRevisions {
			for _, d := range []Direction{C2S, S2C} {
				row, ok := LookupMethod(name, r, d)
				f, fok := Facts(name, r, d)
				if ok != fok || row.Kind != f.Kind || row.Gate != f.Gate || row.Extension != f.Extension {
					t.Errorf("%s %s %s: Facts %+v %v, LookupMethod %+v %v", name, r, d, f, fok, row, ok)
				}
			}
		}
	}
	if _, ok := Facts("ping", Rev20260728, C2S); ok {
		t.Error("Facts: ping exists in 2026-07-28")
	}
	for name, want := range map[string]bool{"tools/list": true, "notifications/tools/list_changed": true, "ping": false, "initialize": false, "completion/complete": true, "nope": false} {
		if got := GatedAnywhere(name); got != want {
			t.Errorf("GatedAnywhere(%q) = %v, want %v", name, got, want)
		}
	}
}

// A method's Index names it alone: the same for every reference to the name, a
// different one for every other name, -1 for a name the table does not hold.
func TestMethodIndexNamesOneMethod(t *testing.T) {
	byIndex := map[int]string{}
	for _, m := range Methods() {
		i := Resolve(m.Name).Index()
		if i < 0 {
			t.Fatalf("%s: Index %d", m.Name, i)
		}
		if other, ok := byIndex[i]; ok && other != m.Name {
			t.Fatalf("%s and %s share Index %d", m.Name, other, i)
		}
		byIndex[i] = m.Name
		if again := Resolve(strings.Clone(m.Name)).Index(); again != i {
			t.Fatalf("%s: Index %d, then %d", m.Name, i, again)
		}
	}
	if len(byIndex) < 20 {
		t.Fatalf("only %d methods", len(byIndex))
	}
	if i := Resolve("no/such/method").Index(); i != -1 {
		t.Fatalf("an unknown method has Index %d", i)
	}
}
