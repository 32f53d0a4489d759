package spec

import (
	"slices"
	"testing"
)

func TestErrorCodeIn(t *testing.T) {
	all := Revisions()
	legacy := []Revision{Rev20241105, Rev20250326, Rev20250618, Rev20251125}
	modern := []Revision{Rev20260728, RevDraft}
	tests := []struct {
		code int64
		in   []Revision
	}{
		{-32700, all},
		{-32600, all},
		{-32601, all},
		{-32602, all},
		{-32603, all},
		{-32002, legacy},
		{-32042, []Revision{Rev20251125}},
		{-32020, modern},
		{-32021, modern},
		{-32022, modern},
		{-32001, nil},
		{-32003, nil},
		{-32004, nil},
		{-32000, nil},
		{-32099, nil},
		{0, nil},
		{32700, nil},
	}
	for _, tt := range tests {
		for _, r := range all {
			want := slices.Contains(tt.in, r)
			if got := ErrorCodeIn(tt.code, r); got != want {
				t.Errorf("ErrorCodeIn(%d, %q) = %v, want %v", tt.code, r, got, want)
			}
		}
		if ErrorCodeIn(tt.code, "2099-01-01") {
			t.Errorf("ErrorCodeIn(%d, unknown revision) = true, want false", tt.code)
		}
	}
}
