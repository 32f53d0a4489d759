package redact

import (
	"hash/maphash"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
)

// benchFrames reads the frames of the real captures (fixtures/real), or of the
// capture MCPSLEUTH_BENCH_CAPTURE names, each detached into memory of its own, as
// the replay holds them.
func benchFrames(b *testing.B) []*frame.Frame {
	b.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "real", "*.jsonl"))
	if p := os.Getenv("MCPSLEUTH_BENCH_CAPTURE"); p != "" { // a capture of capturegen's, say

		paths = []string{p}
	}
	if err != nil || len(paths) == 0 {
		b.Fatalf("no fixtures: %v", err)
	}
	var frames []*frame.Frame
	shaper := &schema.Shaper{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		rd, err := frame.NewReader(p, f, frame.Options{Shaper: shaper}) // shaped, as a check reads them
		if err != nil {
			b.Fatal(err)
		}
		eachFrame(rd, func(rec *frame.Record) {
			var arena frame.Arena
			into := new(frame.Frame)
			rd.Detach(rec.Frame, &arena, into, true)
			frames = append(frames, into)
		})
		rd.Close()
		f.Close()
	}
	return frames
}

// BenchmarkCollect is the walk redaction collects a frame's values with, ahead of
// the replay (Collector.Collect), per frame of the real captures.
func BenchmarkCollect(b *testing.B) {
	frames := benchFrames(b)
	c := NewCollector(maphash.MakeSeed())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Collect(frames[i%len(frames)])
	}
}

// BenchmarkCollectInto is the walk on the replay, into a session's set, started
// again empty at each pass over the frames.
func BenchmarkCollectInto(b *testing.B) {
	frames := benchFrames(b)
	seed := maphash.MakeSeed()
	c := NewCollector(seed)
	set := NewSeededSet(seed)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%len(frames) == 0 {
			set = NewSeededSet(seed)
		}
		c.CollectInto(frames[i%len(frames)], set)
	}
}
