package session_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// fixtureSeeds adds every capture under fixtures/ (fixtures/hostile included) of at
// most maxSeed bytes to a fuzz target's seed corpus, which CI runs as a test.
func fixtureSeeds(f *testing.F) {
	const maxSeed = 64 << 10
	n := 0
	err := filepath.WalkDir("../../fixtures", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(path) {
		case ".jsonl", ".log", ".json", ".har":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if len(data) <= maxSeed {
			f.Add(data)
			n++
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	if n < 50 {
		f.Fatalf("only %d fixture seeds", n)
	}
}

// FuzzTracker builds sessions from arbitrary input, seeded with the fixtures. It must
// not panic, and what it builds must hold together: every session started ends once,
// the sessions hold every frame read, a response is paired only with a request of the
// other side whose id equals its own in value, and the tables a session keeps stay
// bounded.
func FuzzTracker(f *testing.F) {
	fixtureSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := frame.NewReader("fuzz", bytes.NewReader(data), frame.Options{})
		if err != nil {
			return
		}
		defer rd.Close()
		started, ended := map[*session.Session]int{}, map[*session.Session]int{}
		tracker := session.NewTracker("fuzz", func(s *session.Session) { started[s]++ }, func(s *session.Session) { ended[s]++ })
		frames := 0
		for {
			rec, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return // a broken compressed stream or JSON document
			}
			if rec.Kind != frame.RecordFrame {
				continue
			}
			frames++
			tracker.Frame(rec.Frame, func(m *session.Message) {
				if m.Kind.IsResponse() && m.Request != nil {
					r := m.Request
					if r.Key != frame.IDKey(m.ID) {
						t.Fatalf("line %d: response id %s paired with request id %s (line %d)", m.Line, m.ID, r.ID, r.Line)
					}
					if m.Dir != spec.DirUnknown && r.Dir != spec.DirUnknown && m.Dir != r.Dir.Opposite() {
						t.Fatalf("line %d: a %s response paired with a %s request (line %d)", m.Line, m.Dir, r.Dir, r.Line)
					}
				}
				if s := m.Session; s.Tracked() > 4*session.MaxOutstanding {
					t.Fatalf("session %d follows %d items", s.Index, s.Tracked())
				}
			})
		}
		tracker.Close()
		held := 0
		for s, n := range started {
			if n != 1 || ended[s] != 1 {
				t.Fatalf("session %d started %d times, ended %d times", s.Index, n, ended[s])
			}
			if s.FirstLine > s.LastLine {
				t.Fatalf("session %d spans lines %d-%d", s.Index, s.FirstLine, s.LastLine)
			}
			held += s.Frames
		}
		if len(ended) != len(started) {
			t.Fatalf("%d sessions started, %d ended", len(started), len(ended))
		}
		if held != frames || held != rd.Stats().Frames {
			t.Fatalf("%d frames read (stats: %d), the sessions hold %d", frames, rd.Stats().Frames, held)
		}
	})
}
