package frame_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// framePlaces reads a capture and lists its frames as "entry:line kind method id".
func framePlaces(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, st, err := readAll(t, path, f, frame.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, recs, st)
	var out []string
	for _, r := range framesOf(recs) {
		out = append(out, fmt.Sprintf("%d:%d %s %s %s", r.Frame.Entry, r.Frame.Line, r.Frame.Kind, r.Frame.Method, r.Frame.ID))
	}
	return out
}

// Every frame of a document format carries its entry and the line of the file its
// text starts on (issue 12 item 1): the client's message on its postData.text line,
// the server's on its content.text line, all events of one SSE body on that line.
func TestHARFileLines(t *testing.T) {
	got := framePlaces(t, "../../fixtures/real/http/http-ts-client-go-server-sampling-undeclared.har")
	want := []string{
		"1:58 request initialize 0",
		"1:97 result  0",
		"2:173 notification notifications/initialized ",
		"4:370 request tools/list 1",
		"4:405 result  1",
		"5:481 request tools/call 2",
		"5:516 request sampling/createMessage 1",
		"5:516 result  2",
		"6:592 error  1",
		"7:690 request ping 3",
		"7:725 result  3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("frames (entry:line):\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// An Inspector export: the message on the line of its "message" member, the folded
// response on the line of its "response" member.
func TestInspectorFileLines(t *testing.T) {
	got := framePlaces(t, "../../fixtures/formats/inspector-protocol-sampling.json")
	if len(got) < 3 || got[0] != "1:7 request initialize 0" || got[1] != "1:20 result  0" || !strings.HasPrefix(got[2], "2:50 notification notifications/initialized") {
		t.Errorf("frames (entry:line):\n%s", strings.Join(got, "\n"))
	}
}
