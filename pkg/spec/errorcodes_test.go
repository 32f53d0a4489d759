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

func TestToolCallProtocolError(t *testing.T) {
	for _, c := range []struct {
		code int64
		want bool
	}{
		{-32700, true}, {-32600, true}, {-32601, true}, {-32602, true},
		{-32002, true}, {-32042, true}, {-32020, true}, {-32021, true}, {-32022, true},
		{-32001, true}, {-32003, true}, {-32004, true}, // the 2026-07-28 draft's numbers
		{-32000, true}, // the TypeScript SDK's Connection closed, forwarded by bridges
		{-32603, false}, {0, false}, {-32010, false}, {-32050, false}, {-32099, false}, {1, false}, {500, false},
	} {
		if got := ToolCallProtocolError(c.code); got != c.want {
			t.Errorf("ToolCallProtocolError(%d) = %v, want %v", c.code, got, c.want)
		}
	}
	if got := PreReleaseCodeOf(-32003); got.Code != CodeMissingRequiredClientCapability || got.Name != "MissingRequiredClientCapability" {
		t.Errorf("PreReleaseCodeOf(-32003) = %+v", got)
	}
	if got := PreReleaseCodeOf(-32603); got != (PreReleaseCode{}) {
		t.Errorf("PreReleaseCodeOf(-32603) = %+v, want none", got)
	}
}
