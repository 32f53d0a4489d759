package main

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule/ruletest"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// The captures of every profile, cut into regions judged apart (see
// pkg/driver/regions.go), give what the whole capture gives: the same sessions,
// numbered alike, ending in the same order, with the same findings and notes,
// and the same counts. The line profiles (the Go SDK log among them) are cut
// where their sessions are shorter than a region; the HAR is never cut (one
// JSON document) and must come out the same all the same.
func TestRegionsChangeNothing(t *testing.T) {
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			data := capture(t, p, 3<<20)
			whole, wholeCuts := judged(t, data, driver.RunOptions{RegionBytes: -1})
			if wholeCuts != 0 {
				t.Fatalf("the whole run was cut %d times", wholeCuts)
			}
			for _, workers := range []int{2, 3} {
				got, cuts := judged(t, data, driver.RunOptions{RegionBytes: 32 << 10, RegionWorkers: workers})
				t.Logf("%d workers: %d bytes, %d sessions, %d regions judged apart", workers, len(data), strings.Count(whole, "\nsession "), cuts+1)
				if got != whole {
					t.Errorf("%d workers: the regions' results differ from the whole run's:\n%s", workers, ruletest.FirstDifference(whole, got))
				}
				switch p.ext {
				case ".jsonl", ".log":
					// At least one cut a region, where sessions are shorter than one.
					if sessions := strings.Count(whole, "\nsession "); cuts < min(sessions, len(data)/(32<<10))/2 {
						t.Errorf("%d workers: %d sessions in %d bytes, and only %d regions judged apart", workers, sessions, len(data), cuts)
					}
				default:
					if cuts != 0 {
						t.Errorf("%d workers: a %s capture was cut %d times", workers, p.ext, cuts)
					}
				}
			}
		})
	}
}

// judged renders what a run found, session by session in the order they ended,
// and counts the sessions that began a region other than the first (a session
// whose first line is where a region judged apart began).
func judged(t *testing.T, data []byte, opt driver.RunOptions) (string, int) {
	t.Helper()
	var b strings.Builder
	opt.Discard = true
	opt.OnSession = func(sr *rule.SessionResult) {
		s := sr.Session
		fmt.Fprintf(&b, "\nsession %d %q lines %d-%d frames %d ended by %d\n", s.Index, s.StreamKey, s.FirstLine, s.LastLine, s.Frames, s.EndedBy)
		for _, f := range sr.Findings {
			fmt.Fprintf(&b, "%s %s %d %s %s %s %q %v %q %s\n", f.Rule, f.Severity, f.Line, f.Dir, f.Method, f.ID, f.Message, f.Related, f.Evidence, f.Fingerprint)
		}
		for _, n := range sr.Notes {
			fmt.Fprintf(&b, "note %s\n", n)
		}
	}
	cuts := 0
	res, err := driver.Run("capture", bytes.NewReader(data), rules.All(), opt)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "stats %+v broken %v\n", res.Stats, res.Broken)
	cuts = res.Regions - 1
	if res.Regions == 0 {
		cuts = 0
	}
	return b.String(), cuts
}

// The captures of every profile, cut into regions judged apart with --redact's
// collection of values running in each region's parse stage and replay, give
// the redacted report the whole capture gives, byte for byte.
func TestRegionsKeepRedaction(t *testing.T) {
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			data := capture(t, p, 3<<20)
			redacted := func(opt driver.RunOptions) (string, int, int) {
				tr := trace.New(trace.Options{Needs: trace.Needs{Redaction: true}})
				tr.Apply(&opt)
				res, err := driver.Run("capture", bytes.NewReader(data), rules.All(), opt)
				if err != nil {
					t.Fatal(err)
				}
				rep := report.BuildWith("test", []*driver.InputResult{res}, report.Options{Rules: rules.All(), Trace: tr})
				report.Redact(rep)
				var out strings.Builder
				if err := report.WriteJSON(&out, rep); err != nil {
					t.Fatal(err)
				}
				return out.String(), res.Regions, rep.Summary.Sessions
			}
			whole, _, sessions := redacted(driver.RunOptions{RegionBytes: -1})
			got, regions, _ := redacted(driver.RunOptions{RegionBytes: 32 << 10, RegionWorkers: 2})
			t.Logf("%d bytes, %d sessions, %d regions judged apart", len(data), sessions, regions)
			if got != whole {
				t.Errorf("the regions' redacted report differs from the whole run's:\n%s", ruletest.FirstDifference(whole, got))
			}
			// At least one cut a region, where sessions are shorter than one.
			if (p.ext == ".jsonl" || p.ext == ".log") && regions-1 < min(sessions, len(data)/(32<<10))/2 {
				t.Errorf("%d sessions in %d bytes, and only %d regions judged apart", sessions, len(data), regions)
			}
		})
	}
}

// capture is what the profile writes, about size bytes of it.
func capture(t *testing.T, p profile, size int64) []byte {
	t.Helper()
	var b bytes.Buffer
	o := &output{w: bufio.NewWriter(&b)}
	p.write(o, size)
	if err := o.w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
