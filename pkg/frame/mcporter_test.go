package frame_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// TestMcporterRecord: the recorder's top-level _meta gives direction, time and
// stream and is taken off the message byte for byte; a _meta of the message's own
// (params._meta, result._meta) stays; lifecycle records are context; a second
// connection to a server is a stream of its own.
func TestMcporterRecord(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","method":"$transport/start","_meta":{"dir":"lifecycle","server":"fs","ts":"2026-12-02T08:00:12.171Z"}}`,
		`{"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7}},"jsonrpc":"2.0","id":1,"_meta":{"dir":"send","server":"fs","ts":"2026-12-02T08:00:13.001Z"}}`,
		`{"_meta":{"dir":"recv","server":"fs","ts":"2026-12-02T08:00:13.002Z"}, "jsonrpc":"2.0","id":1,"result":{"_meta":{"k":1},"content":[]}}`,
		`{"jsonrpc":"2.0","method":"$transport/close","_meta":{"dir":"lifecycle","server":"fs","ts":"2026-12-02T08:00:14Z"}}`,
		`{"jsonrpc":"2.0","method":"$transport/start","_meta":{"dir":"lifecycle","server":"fs","ts":"2026-12-02T08:00:15Z"}}`,
		`{"method":"ping","jsonrpc":"2.0","id":1,"_meta":{"dir":"send","server":"fs","ts":"2026-12-02T08:00:16Z"}}`,
		`{"method":"ping","jsonrpc":"2.0","id":1,"_meta":{"dir":"send","server":"other","ts":"2026-12-02T08:00:17Z"}}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
	}, "\n") + "\n"
	recs, st, err := readAll(t, "rec.ndjson", strings.NewReader(in), frame.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Format != "mcporter-ndjson" || st.Frames != 5 || st.Context != 3 {
		t.Fatalf("stats %+v", st)
	}
	type want struct {
		line   int
		dir    spec.Direction
		stream string
		raw    string
		time   string
	}
	wants := []want{
		{2, spec.C2S, "fs", `{"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7}},"jsonrpc":"2.0","id":1}`, "2026-12-02T08:00:13.001Z"},
		{3, spec.S2C, "fs", `{"jsonrpc":"2.0","id":1,"result":{"_meta":{"k":1},"content":[]}}`, "2026-12-02T08:00:13.002Z"},
		{6, spec.C2S, "fs#2", `{"method":"ping","jsonrpc":"2.0","id":1}`, "2026-12-02T08:00:16Z"},
		{7, spec.C2S, "other", `{"method":"ping","jsonrpc":"2.0","id":1}`, "2026-12-02T08:00:17Z"},
		{8, spec.DirUnknown, "", `{"jsonrpc":"2.0","id":2,"result":{}}`, ""},
	}
	var frames []record
	for _, r := range recs {
		switch {
		case r.Kind == frame.RecordFrame:
			frames = append(frames, r)
		case r.Line != 1 && r.Line != 4 && r.Line != 5:
			t.Errorf("line %d: %v, want a frame", r.Line, r.Kind)
		}
	}
	if len(frames) != len(wants) {
		t.Fatalf("%d frames, want %d", len(frames), len(wants))
	}
	for i, w := range wants {
		f := frames[i].Frame
		var ts time.Time
		if w.time != "" {
			ts, _ = time.Parse(time.RFC3339Nano, w.time)
		}
		if f.Line != w.line || f.Dir != w.dir || f.StreamKey != w.stream || string(f.Raw) != w.raw || !f.Time.Equal(ts) || f.Kind == frame.KindInvalid {
			t.Errorf("frame %d: line %d dir %v stream %q time %v kind %v raw %s\nwant %+v", i, f.Line, f.Dir, f.StreamKey, f.Time, f.Kind, f.Raw, w)
		}
	}
}

// TestMcporterLifecycleOnly: a recording of a connection that carried no message
// cannot be judged, and says what it is.
func TestMcporterLifecycleOnly(t *testing.T) {
	in := `{"jsonrpc":"2.0","method":"$transport/start","_meta":{"dir":"lifecycle","server":"fs","ts":"2026-12-02T08:00:12.171Z"}}
{"jsonrpc":"2.0","method":"$transport/close","_meta":{"dir":"lifecycle","server":"fs","ts":"2026-12-02T08:00:13.947Z"}}
`
	_, st, err := readAll(t, "rec.ndjson", strings.NewReader(in), frame.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Format != "mcporter-ndjson" || st.Frames != 0 || !strings.Contains(st.Lossy, "mcporter recording with lifecycle records only") {
		t.Errorf("stats %+v", st)
	}
}
