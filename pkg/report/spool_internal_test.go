package report

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

// The spool keeps runs of sessions that ended in order and writes every session
// out in session order, whatever order they ended in, with nothing for a session
// whose encoding is empty and a separator between the others only.
func TestSpoolOrdersRuns(t *testing.T) {
	spool, err := os.CreateTemp(t.TempDir(), "spool")
	if err != nil {
		t.Fatal(err)
	}
	defer spool.Close()
	st := newSpoolStream(spool, StreamOptions{}, nil, func(w io.Writer, st *spoolStream, sessions func(io.Writer, string, string) error) error {
		return sessions(w, ",", "[")
	})
	add := func(input, index int, text string) {
		st.input = input
		if err := st.Add(&Prepared{Session: Session{Index: index}, encoded: []byte(text)}); err != nil {
			t.Fatal(err)
		}
	}
	add(0, 1, "s1")
	add(0, 2, "s2")
	add(0, 3, "") // nothing to write, in the run
	add(0, 5, "s5")
	add(0, 4, "s4") // ended late
	add(0, 6, "s6")
	add(0, 8, "") // nothing to write, out of any run
	add(0, 7, "s7")
	add(1, 1, "t1") // the next input starts again at 1
	add(1, 2, "t2")
	var out bytes.Buffer
	if err := st.Finish(&out, spool); err != nil {
		t.Fatal(err)
	}
	if want := "[s1,s2,s4,s5,s6,s7,t1,t2"; out.String() != want {
		t.Errorf("spooled sessions written as %q, want %q", out.String(), want)
	}
	if st.written != 8 {
		t.Errorf("written %d, want 8", st.written)
	}
	var runs []string
	for _, r := range st.spooled {
		runs = append(runs, strings.Repeat("x", len(r.sizes)))
	}
	if got := strings.Join(runs, " "); got != "xxx x x xx xx" {
		t.Errorf("runs %q, want the in-order stretches kept together", got)
	}
}
