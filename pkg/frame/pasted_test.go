package frame

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// TestPastedLargerThanThePeek: a pasted handshake whose first document is
// larger than the 1 MiB peek (a client description, instructions of megabytes)
// is still recognised by its first names and read whole (issue 29: it was read
// as a capture and said "no initialize exchange found").
func TestPastedLargerThanThePeek(t *testing.T) {
	params := "{\n  \"protocolVersion\": \"2025-06-18\",\n  \"capabilities\": {},\n  \"clientInfo\": {\"name\": \"c\", \"version\": \"1\", \"description\": \"" + strings.Repeat("d", 1_500_000) + "\"}\n}\n"
	result := "{\n  \"protocolVersion\": \"2025-06-18\",\n  \"capabilities\": {\"tools\": {}},\n  \"serverInfo\": {\"name\": \"s\", \"version\": \"1\"}\n}\n"
	lines, ok := Pasted(bufio.NewReaderSize(strings.NewReader(params+"\n"+result), 1<<20))
	if !ok {
		t.Fatal("not recognised as pasted")
	}
	got := bytes.Split(bytes.TrimSuffix(lines, []byte("\n")), []byte("\n"))
	if len(got) != 2 || !bytes.HasPrefix(got[0], []byte(`{"id":0,"jsonrpc":"2.0","method":"initialize","params":{`)) || len(got[0]) < 1_500_000 ||
		!bytes.Contains(got[1], []byte(`"result":{`)) {
		t.Errorf("rewritten as %d lines: %.120s / %.120s", len(got), got[0], got[len(got)-1])
	}
	// What is not a paste stays unread by Pasted, large or not: a JSON-RPC
	// message pretty-printed, and a capture of one message a line.
	for _, in := range []string{
		"{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 0,\n  \"result\": {\"instructions\": \"" + strings.Repeat("i", 1_500_000) + "\"}\n}\n",
		`{"ts":"2026-01-01T00:00:00Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}}` + "\n",
		`{"capabilities":{},"clientInfo":{"name":"` + strings.Repeat("c", 1_500_000) + `"}}` + "\n",
	} {
		if _, ok := Pasted(bufio.NewReaderSize(strings.NewReader(in), 1<<20)); ok {
			t.Errorf("%.60q... read as a paste", in)
		}
	}
}
