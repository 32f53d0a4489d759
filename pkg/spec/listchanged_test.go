package spec

import "testing"

// TestListChangesMatchMethods: every row of the list_changed table agrees with the
// method table: the notification and its lists exist in the same revisions, the
// notification travels from the side that owns the gate, and methods.tsv gates it
// on the same capability.
func TestListChangesMatchMethods(t *testing.T) {
	for _, l := range ListChanges() {
		rows := MethodRows(l.Notification)
		if len(rows) == 0 {
			t.Errorf("%s: not in the method table", l.Notification)
			continue
		}
		for _, row := range rows {
			if row.Kind != KindNotification || Sender(row.Dir) != l.Gate.Side {
				t.Errorf("%s: a %s sent by the %s, want a notification sent by the %s", l.Notification, row.Kind, Sender(row.Dir), l.Gate.Side)
			}
			if row.Gate != l.Gate {
				t.Errorf("%s: methods.tsv gates it on %s, the table on %s", l.Notification, row.Gate, l.Gate)
			}
			if !CapabilityIn(l.Gate.Side, l.Gate.Path, row.Revisions[0]) {
				t.Errorf("%s: %s is not a capability of %s", l.Notification, l.Gate, row.Revisions[0])
			}
			for _, rev := range row.Revisions {
				for _, list := range l.Lists() {
					if _, ok := LookupMethod(list, rev, row.Dir.Opposite()); !ok {
						t.Errorf("%s under %s: the receiver cannot send %s", l.Notification, rev, list)
					}
				}
			}
		}
		if got, ok := ListChangeOfKind(l.Kind); !ok || got.Notification != l.Notification {
			t.Errorf("ListChangeOfKind(%q) = %v", l.Kind, got)
		}
		for _, list := range l.Lists() {
			if got, ok := ListChangeFetchedBy(list); !ok || got.Kind != l.Kind {
				t.Errorf("ListChangeFetchedBy(%q) = %v", list, got)
			}
		}
	}
}

// TestObligationsNameCapabilities: every obligation belongs to a capability of the table.
func TestObligationsNameCapabilities(t *testing.T) {
	for name := range obligations {
		side, path, err := parseSidePath(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if _, ok := LookupCapability(side, path); !ok {
			t.Errorf("%s: not in capabilities.tsv", name)
		}
	}
}
