package frame_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
)

const benchSize = 50 << 20

var (
	benchOnce           sync.Once
	benchEnv, benchBare []byte
)

// benchInputs builds, once, ~50 MB of envelope JSONL and of bare JSON-RPC JSONL by
// repeating the real captures' frames (their mix of small notifications, requests,
// large tools/list results and batches).
func benchInputs(b *testing.B) ([]byte, []byte) {
	benchOnce.Do(func() {
		paths, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "real", "*.jsonl"))
		if err != nil || len(paths) == 0 {
			b.Fatalf("no fixtures: %v", err)
		}
		var env, bare bytes.Buffer
		for _, p := range paths {
			data := fixture(b, filepath.Base(p))
			env.Write(data)
			for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
				var e struct {
					Msg json.RawMessage `json:"msg"`
				}
				if err := json.Unmarshal(line, &e); err != nil || len(e.Msg) == 0 {
					b.Fatalf("%s: %v", p, err)
				}
				bare.Write(e.Msg)
				bare.WriteByte('\n')
			}
		}
		benchEnv = repeatTo(env.Bytes(), benchSize)
		benchBare = repeatTo(bare.Bytes(), benchSize)
	})
	return benchEnv, benchBare
}

func repeatTo(unit []byte, size int) []byte {
	out := make([]byte, 0, size+len(unit))
	for len(out) < size {
		out = append(out, unit...)
	}
	return out
}

func benchRead(b *testing.B, data []byte, format string) {
	benchReadShaped(b, data, format, nil)
}

// benchReadShaped reads data with the shaper given (nil: none), as an analysis's
// parse stage does.
func benchReadShaped(b *testing.B, data []byte, format string, shaper frame.Shaper) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rd, err := frame.NewReader("bench", bytes.NewReader(data), frame.Options{Shaper: shaper})
		if err != nil {
			b.Fatal(err)
		}
		for {
			rec, err := rd.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				break
			}
			if shaper != nil && rec.Frame != nil {
				rec.Frame.ShapeNow() // computed when asked for: an analysis asks for every frame's
			}
		}
		if st := rd.Stats(); st.Format != format || st.Rejected != 0 || st.Bytes != int64(len(data)) {
			b.Fatalf("stats %+v", st)
		}
	}
}

func BenchmarkReaderEnvelope(b *testing.B) {
	env, _ := benchInputs(b)
	benchRead(b, env, "envelope-jsonl")
}

// BenchmarkReaderEnvelopeShaped is BenchmarkReaderEnvelope with every frame's wire
// shape computed by the scan (what an analysis reads).
func BenchmarkReaderEnvelopeShaped(b *testing.B) {
	env, _ := benchInputs(b)
	benchReadShaped(b, env, "envelope-jsonl", &schema.Shaper{})
}

// BenchmarkReaderEnvelopeWire is BenchmarkReaderEnvelopeShaped the way shapes were
// computed before the scan recorded tokens: each message's bytes walked again by
// schema.Shaper.Wire after the read.
func BenchmarkReaderEnvelopeWire(b *testing.B) {
	env, _ := benchInputs(b)
	var shaper schema.Shaper
	b.SetBytes(int64(len(env)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rd, err := frame.NewReader("bench", bytes.NewReader(env), frame.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for {
			rec, err := rd.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				break
			}
			switch f := rec.Frame; {
			case f == nil || f.Kind == frame.KindInvalid:
			case f.Kind == frame.KindBatch:
				for j := range f.Members {
					_ = shaper.Wire(f.Members[j].Raw)
				}
			default:
				_ = shaper.Wire(f.Raw)
			}
		}
	}
}

func BenchmarkReaderBare(b *testing.B) {
	_, bare := benchInputs(b)
	benchRead(b, bare, "jsonrpc-jsonl")
}

func BenchmarkReaderGoSDKLog(b *testing.B) {
	data := repeatTo(fixture(b, gosdkFixture), benchSize)
	benchRead(b, data, "gosdk-log")
}
