package frame_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// A size hint only sizes the read buffer: whatever it says (the true size, far less,
// far more), every fixture reads to the same records, documents (HAR, Inspector) and
// lines longer than the buffer included.
func TestSizeHintChangesNothing(t *testing.T) {
	var paths []string
	for _, glob := range []string{"../../fixtures/real/*.jsonl", "../../fixtures/real/http/*.har", "../../fixtures/real/gosdk-log/*.log", "../../fixtures/formats/*"} {
		m, _ := filepath.Glob(glob)
		paths = append(paths, m...)
	}
	if len(paths) < 20 {
		t.Fatalf("only %d fixtures found", len(paths))
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		open := func() *os.File {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		}
		want, wantStats, wantErr := readAll(t, path, open(), frame.Options{})
		for _, hint := range []int64{int64(len(data)), 1, 100, 1 << 30} {
			got, gotStats, gotErr := readAll(t, path, open(), frame.Options{SizeHint: hint})
			if gotStats != wantStats || (gotErr == nil) != (wantErr == nil) {
				t.Errorf("%s: size hint %d reads differently (%d records, want %d; stats %+v, want %+v)", path, hint, len(got), len(want), gotStats, wantStats)
			}
			// The records, compared by what they say (a line longer than a small
			// buffer is read into memory of its own, which its frames keep: an
			// internal difference).
			sameFrames(t, got, want)
		}
	}
}
