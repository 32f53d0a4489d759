package spec

import (
	"slices"
	"testing"
)

func TestRevisions(t *testing.T) {
	want := []Revision{Rev20241105, Rev20250326, Rev20250618, Rev20251125, Rev20260728, RevDraft}
	got := Revisions()
	if !slices.Equal(got, want) {
		t.Fatalf("Revisions() = %v, want %v", got, want)
	}
	got[0] = "mutated"
	if Revisions()[0] != Rev20241105 {
		t.Error("modifying the slice returned by Revisions changed the next result")
	}
}

func TestParseRevision(t *testing.T) {
	tests := []struct {
		in     string
		want   Revision
		wantOK bool
	}{
		{"2024-11-05", Rev20241105, true},
		{"2025-03-26", Rev20250326, true},
		{"2025-06-18", Rev20250618, true},
		{"2025-11-25", Rev20251125, true},
		{"2026-07-28", Rev20260728, true},
		{"draft", "", false},
		{"", "", false},
		{"2025-01-01", "", false},
		{" 2025-06-18", "", false},
		{"DRAFT", "", false},
	}
	for _, tt := range tests {
		got, ok := ParseRevision(tt.in)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("ParseRevision(%q) = (%q, %v), want (%q, %v)", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestRevisionKnown(t *testing.T) {
	for _, r := range Revisions() {
		if !r.Known() {
			t.Errorf("%q.Known() = false, want true", r)
		}
	}
	for _, r := range []Revision{"", "2024-11-06", "latest", "Draft"} {
		if r.Known() {
			t.Errorf("%q.Known() = true, want false", r)
		}
	}
}

func TestRevisionBefore(t *testing.T) {
	tests := []struct {
		r, o Revision
		want bool
	}{
		{Rev20241105, Rev20250326, true},
		{Rev20250326, Rev20241105, false},
		{Rev20250618, Rev20251125, true},
		{Rev20251125, Rev20260728, true},
		{Rev20260728, RevDraft, true},
		{RevDraft, Rev20260728, false},
		{Rev20241105, RevDraft, true},
		{Rev20250618, Rev20250618, false},
		{RevDraft, RevDraft, false},
		{"2023-01-01", Rev20241105, false},
		{Rev20241105, "2099-01-01", false},
	}
	for _, tt := range tests {
		if got := tt.r.Before(tt.o); got != tt.want {
			t.Errorf("%q.Before(%q) = %v, want %v", tt.r, tt.o, got, tt.want)
		}
	}
}

func TestRevisionPredicates(t *testing.T) {
	tests := []struct {
		r                                Revision
		modern, batching, capabilityMust bool
	}{
		{Rev20241105, false, false, false},
		{Rev20250326, false, true, false},
		{Rev20250618, false, false, true},
		{Rev20251125, false, false, true},
		{Rev20260728, true, false, true},
		{RevDraft, true, false, true},
		{"unknown", false, false, false},
	}
	for _, tt := range tests {
		if got := tt.r.Modern(); got != tt.modern {
			t.Errorf("%q.Modern() = %v, want %v", tt.r, got, tt.modern)
		}
		if got := tt.r.Batching(); got != tt.batching {
			t.Errorf("%q.Batching() = %v, want %v", tt.r, got, tt.batching)
		}
		if got := tt.r.CapabilityMust(); got != tt.capabilityMust {
			t.Errorf("%q.CapabilityMust() = %v, want %v", tt.r, got, tt.capabilityMust)
		}
	}
}
