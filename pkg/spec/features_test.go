package spec

import "testing"

// TestFeaturesByRevision: each feature row gives, for every revision, what the
// specification says of it, and says how a revision lacks it.
func TestFeaturesByRevision(t *testing.T) {
	for _, c := range []struct {
		f    Feature
		has  []Revision
		lack map[Revision]string
	}{
		{FeatureBatching, []Revision{Rev20250326}, map[Revision]string{
			Rev20241105: "not defined in 2024-11-05 (2025-03-26 added it)",
			Rev20250618: "removed in 2025-06-18",
			Rev20260728: "removed in 2025-06-18",
		}},
		{FeatureHandshake, []Revision{Rev20241105, Rev20250326, Rev20250618, Rev20251125}, map[Revision]string{
			Rev20260728: "removed in 2026-07-28", RevDraft: "removed in 2026-07-28",
		}},
		{FeatureStateless, []Revision{Rev20260728, RevDraft}, map[Revision]string{
			Rev20251125: "not defined in 2025-11-25 (2026-07-28 added it)",
		}},
		{FeatureCapabilityMust, []Revision{Rev20250618, Rev20251125, Rev20260728, RevDraft}, nil},
		{FeatureSubfeatureCapabilities, []Revision{Rev20251125}, map[Revision]string{Rev20260728: "removed in 2026-07-28"}},
		{FeatureTaskResults, []Revision{Rev20251125, Rev20260728, RevDraft}, nil},
		{FeatureCodeResourceNotFound, []Revision{Rev20241105, Rev20250326, Rev20250618, Rev20251125}, nil},
		{FeatureCodeURLElicitationRequired, []Revision{Rev20251125}, nil},
		{FeatureCodesTransport, []Revision{Rev20260728, RevDraft}, nil},
		{FeatureProtocolHeader, []Revision{Rev20250618, Rev20251125, Rev20260728, RevDraft}, nil},
		{FeatureDefaultDialect2020, []Revision{Rev20251125, Rev20260728, RevDraft}, nil},
	} {
		for _, r := range Revisions() {
			want := false
			for _, h := range c.has {
				want = want || h == r
			}
			if r.Has(c.f) != want {
				t.Errorf("%s in %s: %v, want %v", c.f.Name, r, r.Has(c.f), want)
			}
			if want && c.f.Lacking(r) != "" {
				t.Errorf("%s in %s: lacking %q although it has it", c.f.Name, r, c.f.Lacking(r))
			}
		}
		for r, want := range c.lack {
			if got := c.f.Lacking(r); got != want {
				t.Errorf("%s in %s: lacking %q, want %q", c.f.Name, r, got, want)
			}
		}
	}
	if Revision("1999-01-01").Has(FeatureCapabilityMust) || FeatureBatching.Lacking("1999-01-01") != "" {
		t.Errorf("an unknown revision has or lacks a feature")
	}
}

// TestRevisionOrderIsTheTable: the order a revision compares by is its place in
// the table of revisions.
func TestRevisionOrderIsTheTable(t *testing.T) {
	for i, r := range allRevisions {
		if r.order() != i {
			t.Errorf("%s: order %d, want %d", r, r.order(), i)
		}
	}
	if Revision("2099-01-01").order() != -1 {
		t.Errorf("an unknown revision has an order")
	}
}

// TestRevisionNext: the revision after each, the last and unknown ones themselves.
func TestRevisionNext(t *testing.T) {
	for r, want := range map[Revision]Revision{Rev20241105: Rev20250326, Rev20251125: Rev20260728, Rev20260728: RevDraft, RevDraft: RevDraft, "1999-01-01": "1999-01-01"} {
		if got := r.Next(); got != want {
			t.Errorf("%s.Next() = %s, want %s", r, got, want)
		}
	}
}
