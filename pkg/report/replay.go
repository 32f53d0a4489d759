package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/replay"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// ReplayRun names what a replay played and against what.
type ReplayRun struct {
	Capture string `json:"capture"` // CAPTURE#N
	Server  string `json:"server"`  // the command, or the URL
	// Out is the recording of the live session ("" when none was kept).
	Out string `json:"out,omitempty"`
}

// WriteReplayText writes a replay's verdicts, one request a line, the
// changes under each, then the contract diff of the two sessions (nil: none).
func WriteReplayText(w io.Writer, run ReplayRun, res *replay.Result, d *trace.Diff, opt DiffOptions) error {
	var b strings.Builder
	counts := map[replay.Verdict]int{}
	for _, q := range res.Requests {
		counts[q.Verdict]++
	}
	var parts []string
	for _, v := range []replay.Verdict{replay.Same, replay.Different, replay.ErrorNow, replay.NoAnswer, replay.Fixed, replay.AnsweredNow, replay.Unanswered} {
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	fmt.Fprintf(&b, "replay of %s against %s: %s", Safe(run.Capture), Safe(run.Server), quote.Count(len(res.Requests), "request"))
	if len(parts) > 0 {
		b.WriteString(" (" + strings.Join(parts, ", ") + ")")
	}
	b.WriteString("\n")
	for _, q := range res.Requests {
		mark := " "
		if q.Breaking {
			mark = "!"
		}
		what := q.Method
		if q.Subject != "" {
			what += " " + quote.String(q.Subject, 40)
		}
		fmt.Fprintf(&b, "%s line %-5d %-40s %s\n", mark, q.Line, Safe(what)+" id="+Safe(q.ID), q.Verdict)
		for _, c := range q.Changes {
			fmt.Fprintf(&b, "      %s\n", Safe(c))
		}
	}
	if res.ServerRequests > 0 || res.Unscripted > 0 {
		fmt.Fprintf(&b, "the server's requests: %d answered as the captured client answered, %d the capture had no answer for\n", res.ServerRequests, res.Unscripted)
	}
	if res.Gone {
		b.WriteString("the server went away before the replay ended\n")
	}
	if n := res.Breaking(); n > 0 {
		fmt.Fprintf(&b, "%s break what the capture shows working (marked !)\n", quote.Count(n, "request"))
	} else {
		b.WriteString("nothing the capture shows working is broken\n")
	}
	if run.Out != "" {
		fmt.Fprintf(&b, "the live session is recorded in %s (mcpsleuth check judges it)\n", Safe(run.Out))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the replay: %w", err)
	}
	if d == nil {
		return nil
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	return WriteDiff(w, "text", d, opt)
}

// WriteReplayJSON writes a replay's verdicts and the contract diff as JSON.
func WriteReplayJSON(w io.Writer, run ReplayRun, res *replay.Result, d *trace.Diff, opt DiffOptions) error {
	b, err := json.MarshalIndent(struct {
		Version  int            `json:"version"`
		Tool     Tool           `json:"tool"`
		Run      ReplayRun      `json:"replay"`
		Result   *replay.Result `json:"result"`
		Breaking int            `json:"breaking"`
		Diff     *trace.Diff    `json:"diff,omitempty"`
	}{1, Tool{Name: "mcpsleuth", Version: opt.Version}, run, res, res.Breaking(), d}, "", "  ")
	if err != nil {
		return fmt.Errorf("mcpsleuth: encoding the replay: %w", err)
	}
	if _, err := w.Write(append(escapeJSONText(b), '\n')); err != nil {
		return fmt.Errorf("mcpsleuth: writing the replay: %w", err)
	}
	return nil
}
