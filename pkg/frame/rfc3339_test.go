package frame

import (
	"testing"
	"time"
)

// TestUTCStampsParseAsTimeParse: the fast path for recorders' timestamps gives
// time.Parse's result for what it accepts, and leaves the rest to it.
func TestUTCStampsParseAsTimeParse(t *testing.T) {
	for _, s := range []string{
		"2026-11-30T02:00:00Z", "2026-11-30T02:00:00.0015Z", "2026-11-30T02:00:00.123456789Z",
		"2024-02-29T23:59:59.5Z", "2023-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z",
		"2026-11-30T24:00:00Z", "2026-11-30T02:60:00Z", "2026-11-30T02:00:60Z", "2026-11-30T02:00:00.Z",
		"2026-11-30T02:00:00.1234567891Z", "2026-11-30 02:00:00Z", "2026-11-30T02:00:00+01:00",
		"2026-1a-30T02:00:00Z", "0000-01-01T00:00:00Z", "0000-03-01T00:00:00Z", "2026-11-31T00:00:00Z",
		"1900-02-29T00:00:00Z", "2000-02-29T12:34:56.7Z", "1969-12-31T23:59:59.999Z", "9999-12-31T23:59:59Z", "1600-03-01T00:00:00Z",
	} {
		want, err := time.Parse(time.RFC3339Nano, s)
		got, ok := parseUTCStamp(s)
		if !ok {
			continue // time.Parse decides (layouts in parseTime)
		}
		if err != nil || !got.Equal(want) || got.Location() != want.Location() || got != want {
			t.Errorf("parseUTCStamp(%q) = %v, time.Parse gives %v (%v)", s, got, want, err)
		}
	}
	if _, ok := parseUTCStamp("2026-11-30T02:00:00.0015Z"); !ok {
		t.Error("the common stamp is not on the fast path")
	}
}
