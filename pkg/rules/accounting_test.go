package rules_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule/ruletest"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

// TestNothingIsLost holds every capture under fixtures/ (fixtures/hostile included)
// to the reader's accounting: every line (document entry) read is a frame's line,
// context, blank or folded into a batch; every frame read reaches a session; every
// context line reaches the analysis.
func TestNothingIsLost(t *testing.T) {
	captures := ruletest.Captures(t, "../../fixtures")
	if len(captures) < 50 {
		t.Fatalf("only %d captures under fixtures/", len(captures))
	}
	for _, path := range captures {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		context := 0
		res, err := driver.Run(path, bytes.NewReader(data), rules.All(), driver.RunOptions{OnContext: func(int, []byte) { context++ }})
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		st := res.Stats
		if n := st.Unaccounted(); n != 0 {
			t.Errorf("%s: %d of %d lines unaccounted for: %d carried frames, %d context, %d blank, %d folded", path, n, st.Lines, st.FrameLines, st.Context, st.Blank, st.Folded)
		}
		if st.Frames < st.FrameLines || st.Rejected > st.Frames || st.Mixed > st.Frames || st.FrameLike > st.Context {
			t.Errorf("%s: counts contradict each other: %+v", path, st)
		}
		sessionFrames := 0
		for _, s := range res.Sessions {
			sessionFrames += s.Session.Frames
		}
		if sessionFrames != st.Frames {
			t.Errorf("%s: the reader read %d frames, the sessions hold %d", path, st.Frames, sessionFrames)
		}
		if context != st.Context {
			t.Errorf("%s: the reader counted %d context lines, the analysis was given %d", path, st.Context, context)
		}
	}
}

// FuzzCheck runs the whole check (reader, sessions, every rule) over arbitrary input,
// seeded with the captures under fixtures/ (hostile ones included). It must not
// panic, must account for every line it read, and must anchor every finding on a
// line of the input.
func FuzzCheck(f *testing.F) {
	for _, path := range ruletest.Captures(f, "../../fixtures") {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) <= 64<<10 {
			f.Add(data)
		}
	}
	catalogue := rules.All()
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := driver.Run("fuzz", bytes.NewReader(data), catalogue, driver.RunOptions{})
		if err != nil {
			return // not readable at all (a broken compressed header)
		}
		st := res.Stats
		if res.Broken == nil && st.Unaccounted() != 0 {
			t.Fatalf("stats %+v: %d lines unaccounted for", st, st.Unaccounted())
		}
		frames := 0
		for _, s := range res.Sessions {
			frames += s.Session.Frames
			for _, fd := range s.Findings {
				// Lines counts the entries of a document format, whose findings
				// carry the entry beside the line of the file.
				if at := fd.Line; fd.Entry > 0 {
					if fd.Entry > st.Lines || fd.Line < 1 {
						t.Fatalf("%s at entry %d of %d, line %d: %s", fd.Rule, fd.Entry, st.Lines, fd.Line, fd.Message)
					}
				} else if at < 0 || at > st.Lines {
					t.Fatalf("%s at line %d of %d: %s", fd.Rule, fd.Line, st.Lines, fd.Message)
				}
			}
		}
		if frames != st.Frames {
			t.Fatalf("the reader read %d frames, the sessions hold %d", st.Frames, frames)
		}
	})
}
