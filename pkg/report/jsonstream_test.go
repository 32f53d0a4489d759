package report_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule/ruletest"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// wholeJSON is the JSON report built whole, then written.
func wholeJSON(t *testing.T, paths []string, redact bool) []byte {
	return whole(t, paths, redact, func(w *bytes.Buffer, rep *report.Report) error {
		return report.WriteJSON(w, rep)
	})
}

// wholeJSONL is the jsonl report built whole, then written.
func wholeJSONL(t *testing.T, paths []string, redact bool) []byte {
	return whole(t, paths, redact, func(w *bytes.Buffer, rep *report.Report) error { return report.WriteJSONL(w, rep) })
}

func whole(t *testing.T, paths []string, redact bool, write func(*bytes.Buffer, *report.Report) error) []byte {
	t.Helper()
	var results []*driver.InputResult
	tracer := trace.Require(trace.Options{Needs: trace.Needs{Redaction: redact}})
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		opt := driver.RunOptions{}
		tracer.Apply(&opt)
		res, err := driver.Run(path, bytes.NewReader(data), rules.All(), opt)
		if err != nil {
			continue
		}
		results = append(results, res)
	}
	rep := report.BuildWith("test", results, report.Options{Rules: rules.All(), Trace: tracer})
	if redact {
		report.Redact(rep)
	}
	var b bytes.Buffer
	if err := write(&b, rep); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// streamedJSON is the JSON report written session by session through a spool.
func streamedJSON(t *testing.T, paths []string, redact bool) []byte {
	return streamed(t, paths, redact, report.NewJSONStream)
}

// streamedJSONL is the jsonl report written session by session through a spool.
func streamedJSONL(t *testing.T, paths []string, redact bool) []byte {
	return streamed(t, paths, redact, report.NewJSONLStream)
}

func streamed(t *testing.T, paths []string, redact bool, open func(io.Writer, report.StreamOptions) report.Stream) []byte {
	t.Helper()
	return streamedWith(t, paths, redact, open, nil)
}

// streamedWith is streamed, the run having met inputs it could not read or judge.
func streamedWith(t *testing.T, paths []string, redact bool, open func(io.Writer, report.StreamOptions) report.Stream, errs []report.InputError) []byte {
	t.Helper()
	var spool bytes.Buffer
	st := open(&spool, report.StreamOptions{Version: "test", Redact: redact})
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// With --redact, the command runs a tracer for the session's redacted values.
		tracer := trace.Require(trace.Options{Needs: trace.Needs{Redaction: redact}})
		opt := driver.RunOptions{Discard: true, OnSession: func(sr *rule.SessionResult) {
			if err := st.Session(sr, tracer.Of(sr)); err != nil {
				t.Fatal(err)
			}
		}}
		tracer.Apply(&opt)
		res, err := driver.Run(path, bytes.NewReader(data), rules.All(), opt)
		if err != nil {
			continue
		}
		if len(res.Sessions) != 0 {
			t.Fatalf("%s: sessions kept although discarded", path)
		}
		st.Input(res)
	}
	st.Errors(errs)
	var b bytes.Buffer
	if err := st.Finish(&b, bytes.NewReader(spool.Bytes())); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The streamed JSON report is byte for byte the report built whole: for each
// fixture alone (interleaved streams end their sessions out of order), for all of
// them as the inputs of one run, with and without --redact, and for no input.
func TestJSONStreamEqualsWholeReport(t *testing.T) {
	paths := ruletest.Captures(t, filepath.Join("..", "..", "fixtures"))
	for _, redact := range []bool{false, true} {
		for _, path := range paths {
			whole, streamed := wholeJSON(t, []string{path}, redact), streamedJSON(t, []string{path}, redact)
			if !bytes.Equal(whole, streamed) {
				t.Fatalf("%s (redact %v): the streamed report differs:\n--- whole\n%s\n--- streamed\n%s", path, redact, whole, streamed)
			}
		}
		if whole, streamed := wholeJSON(t, paths, redact), streamedJSON(t, paths, redact); !bytes.Equal(whole, streamed) {
			t.Fatalf("all fixtures (redact %v): the streamed report differs", redact)
		}
		if whole, streamed := wholeJSONL(t, paths, redact), streamedJSONL(t, paths, redact); !bytes.Equal(whole, streamed) || len(whole) == 0 {
			t.Fatalf("all fixtures (redact %v): the streamed jsonl differs (or is empty)", redact)
		}
	}
	if whole, streamed := wholeJSON(t, nil, false), streamedJSON(t, nil, false); !bytes.Equal(whole, streamed) {
		t.Fatalf("no input: the streamed report differs:\n--- whole\n%s\n--- streamed\n%s", whole, streamed)
	}
}

// Sessions of interleaved streams end out of order (a new initialize on one stream
// ends its session while an older one goes on): the stream still writes them by index.
func TestJSONStreamOrdersSessionsByIndex(t *testing.T) {
	line := func(stream, dir, msg string) string {
		return `{"ts":"2026-11-30T10:00:00Z","session_id":"` + stream + `","dir":"` + dir + `","msg":` + msg + "}\n"
	}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	result := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`
	capture := line("a", "c->s", init) + line("a", "s->c", result) +
		line("b", "c->s", init) + line("b", "s->c", result) +
		line("b", "c->s", init) + line("b", "s->c", result) +
		line("a", "c->s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	path := filepath.Join(t.TempDir(), "interleaved.jsonl")
	if err := os.WriteFile(path, []byte(capture), 0o644); err != nil {
		t.Fatal(err)
	}
	whole, streamed := wholeJSON(t, []string{path}, false), streamedJSON(t, []string{path}, false)
	if !bytes.Equal(whole, streamed) {
		t.Fatalf("the streamed report differs:\n--- whole\n%s\n--- streamed\n%s", whole, streamed)
	}
	if whole, streamed := wholeJSONL(t, []string{path}, false), streamedJSONL(t, []string{path}, false); !bytes.Equal(whole, streamed) || len(whole) == 0 {
		t.Fatalf("the streamed jsonl differs (or is empty):\n--- whole\n%s\n--- streamed\n%s", whole, streamed)
	}
}

// The text report written session by session through a spool (issue 11 item 7:
// memory no longer grows with the number of sessions) is byte for byte the text
// report built whole: for each fixture alone, for all of them as one run (with
// and without --redact, in colour), and for no input.
func TestTextStreamEqualsWholeReport(t *testing.T) {
	paths := ruletest.Captures(t, filepath.Join("..", "..", "fixtures"))
	for _, opt := range []report.TextOptions{{}, {Color: true, Width: 80}} {
		text := func(w *bytes.Buffer, rep *report.Report) error { return report.WriteText(w, rep, opt) }
		open := func(spool io.Writer, so report.StreamOptions) report.Stream {
			so.Text = opt
			return report.NewTextStream(spool, so)
		}
		for _, redact := range []bool{false, true} {
			for _, path := range paths {
				if opt.Color || redact {
					break // each fixture alone once, as it is: the run of all of them covers colour and redaction
				}
				whole, streamed := whole(t, []string{path}, redact, text), streamed(t, []string{path}, redact, open)
				if !bytes.Equal(whole, streamed) {
					t.Fatalf("%s (redact %v, %+v): the streamed text differs:\n--- whole\n%s\n--- streamed\n%s", path, redact, opt, whole, streamed)
				}
			}
			if whole, streamed := whole(t, paths, redact, text), streamed(t, paths, redact, open); !bytes.Equal(whole, streamed) {
				t.Fatalf("all fixtures (redact %v, %+v): the streamed text differs", redact, opt)
			}
		}
		if whole, streamed := whole(t, nil, false, text), streamed(t, nil, false, open); !bytes.Equal(whole, streamed) || len(whole) == 0 {
			t.Fatalf("no input: the streamed text differs:\n--- whole\n%s\n--- streamed\n%s", whole, streamed)
		}
	}
}

// The handshakes written session by session through a spool (issue 11 item 7)
// are byte for byte those written whole, in text and JSON, for every fixture.
func TestHandshakeStreamEqualsWhole(t *testing.T) {
	for _, path := range ruletest.Captures(t, filepath.Join("..", "..", "fixtures")) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		tr := trace.Require(trace.Options{Needs: report.HandshakeRequires})
		opt := driver.RunOptions{}
		tr.Apply(&opt)
		res, err := driver.Run(path, bytes.NewReader(data), nil, opt)
		if err != nil {
			continue
		}
		var hs []*report.Handshake
		for _, sr := range res.Sessions {
			if t := tr.Of(sr); t != nil && t.Handshake != nil {
				hs = append(hs, t.Handshake)
			}
		}
		var text, js bytes.Buffer
		if err := report.WriteHandshakeText(&text, hs, report.TextOptions{Color: true}); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteHandshakeJSON(&js, hs); err != nil {
			t.Fatal(err)
		}
		for name, c := range map[string]struct {
			whole []byte
			open  func(io.Writer, report.StreamOptions) report.Stream
		}{"text": {text.Bytes(), report.NewHandshakeTextStream}, "json": {js.Bytes(), report.NewHandshakeJSONStream}} {
			var spool bytes.Buffer
			st := c.open(&spool, report.StreamOptions{Text: report.TextOptions{Color: true}})
			tr := trace.Require(trace.Options{Needs: report.HandshakeRequires})
			opt := driver.RunOptions{Discard: true, OnSession: func(sr *rule.SessionResult) {
				if err := st.Session(sr, tr.Of(sr)); err != nil {
					t.Fatal(err)
				}
			}}
			tr.Apply(&opt)
			if _, err := driver.Run(path, bytes.NewReader(data), nil, opt); err != nil {
				t.Fatal(err)
			}
			var streamed bytes.Buffer
			if err := st.Finish(&streamed, bytes.NewReader(spool.Bytes())); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(c.whole, streamed.Bytes()) {
				t.Fatalf("%s %s: the streamed handshakes differ:\n--- whole\n%s\n--- streamed\n%s", path, name, c.whole, streamed.Bytes())
			}
		}
	}
}

// The inputs that could not be read or judged are in the streamed JSON and jsonl
// as in the reports built whole (and masked alike with --redact).
func TestStreamCarriesErrors(t *testing.T) {
	errs := []report.InputError{
		{Input: "missing-sk-live-abcdefghijklmnopqrstuvwx.jsonl", Kind: report.ErrorUnreadable, Message: "cannot read: no such file or directory"},
		{Input: "archive", Kind: report.ErrorNoCaptures, Message: "no captures found"},
	}
	path := filepath.Join("testdata", "golden", "session.jsonl")
	for _, redact := range []bool{false, true} {
		for _, f := range []struct {
			name  string
			write func(*bytes.Buffer, *report.Report) error
			open  func(io.Writer, report.StreamOptions) report.Stream
		}{
			{"json", func(w *bytes.Buffer, r *report.Report) error { return report.WriteJSON(w, r) }, report.NewJSONStream},
			{"jsonl", func(w *bytes.Buffer, r *report.Report) error { return report.WriteJSONL(w, r) }, report.NewJSONLStream},
		} {
			whole := whole(t, []string{path}, redact, func(w *bytes.Buffer, rep *report.Report) error {
				rep.Errors = append([]report.InputError(nil), errs...)
				if redact {
					report.RedactErrors(rep.Errors)
				}
				return f.write(w, rep)
			})
			streamed := streamedWith(t, []string{path}, redact, f.open, errs)
			if !bytes.Equal(whole, streamed) {
				t.Fatalf("%s (redact %v): the streamed report differs:\n--- whole\n%s\n--- streamed\n%s", f.name, redact, whole, streamed)
			}
			if !bytes.Contains(streamed, []byte("no-captures")) || !bytes.Contains(streamed, []byte("unreadable")) {
				t.Errorf("%s: the errors are missing:\n%s", f.name, streamed)
			}
			if redact == bytes.Contains(streamed, []byte("abcdefghijklmnopqrstuvwx")) {
				t.Errorf("%s (redact %v): the secret in an input name is masked only with --redact:\n%s", f.name, redact, streamed)
			}
		}
	}
}

// A pipelined stream writes what the stream it wraps writes, byte for byte, for
// every fixture and all of them together (the work only moves to a goroutine).
func TestPipelinedStreamChangesNothing(t *testing.T) {
	paths := ruletest.Captures(t, filepath.Join("..", "..", "fixtures"))
	pipelined := func(open func(io.Writer, report.StreamOptions) report.Stream) func(io.Writer, report.StreamOptions) report.Stream {
		return func(w io.Writer, opt report.StreamOptions) report.Stream { return report.Pipelined(open(w, opt)) }
	}
	for _, redact := range []bool{false, true} {
		if direct, piped := streamed(t, paths, redact, report.NewJSONStream), streamed(t, paths, redact, pipelined(report.NewJSONStream)); !bytes.Equal(direct, piped) || len(direct) == 0 {
			t.Fatalf("redact %v: the pipelined JSON stream differs", redact)
		}
		if direct, piped := streamed(t, paths, redact, report.NewJSONLStream), streamed(t, paths, redact, pipelined(report.NewJSONLStream)); !bytes.Equal(direct, piped) || len(direct) == 0 {
			t.Fatalf("redact %v: the pipelined jsonl stream differs", redact)
		}
	}
}

// failingWriter fails every write: a spool on a full disk.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// A spool that cannot be written fails the pipelined stream: Wait returns the error.
func TestPipelinedStreamReportsItsError(t *testing.T) {
	st := report.Pipelined(report.NewJSONStream(failingWriter{}, report.StreamOptions{Version: "test"}))
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "real", "ts-everything-healthy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := driver.Run("healthy.jsonl", bytes.NewReader(data), rules.All(), driver.RunOptions{Discard: true, OnSession: func(sr *rule.SessionResult) { st.Session(sr, nil) }})
	if err != nil {
		t.Fatal(err)
	}
	st.Input(res)
	if err := st.Wait(); err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("Wait = %v, want the spool's error", err)
	}
}
