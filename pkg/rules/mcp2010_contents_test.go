package rules

import (
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// blobResult is a resources/read result carrying a base64 blob of n bytes.
func blobResult(t testing.TB, uri string, n int) frame.Node {
	text := `{"contents":[{"uri":"` + uri + `","mimeType":"application/pdf","blob":"` + strings.Repeat("QUJD", n/4) + `"}],"_meta":{"x":"file:///etc"}}`
	res, err := frame.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// MCP2010 reads a resources/read result's contents where they lie: the result of
// the URI requested, megabytes of blob and all, costs no allocation; another file
// URI is found, and only in contents[].uri.
func TestContentsFileURIs(t *testing.T) {
	const uri = "file:///srv/reports/scans/INV-2025-2489.pdf"
	res := blobResult(t, uri, 4<<20)
	if a := testing.AllocsPerRun(20, func() {
		if found := contentsFileURIs(res, uri); found != nil {
			t.Fatalf("found %v", found)
		}
	}); a != 0 {
		t.Errorf("a result of the URI requested: %v allocations", a)
	}
	found := contentsFileURIs(res, "file:///srv/other")
	if len(found) != 1 || found[0].uri != uri || found[0].where != "contents[].uri" {
		t.Errorf("found %v", found)
	}
	for _, text := range []string{`{"contents":{"a":{"uri":"FILE:///x"}}}`, `{"contents":[{"uri":"file:\/\/\/x"}]}`} {
		n, err := frame.Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if found := contentsFileURIs(n, ""); len(found) != 1 {
			t.Errorf("%s: found %v", text, found)
		}
	}
}

func BenchmarkContentsFileURIs(b *testing.B) {
	const uri = "file:///srv/reports/scans/INV-2025-2489.pdf"
	res := blobResult(b, uri, 4<<20)
	b.ReportAllocs()
	b.SetBytes(int64(len(res.Raw())))
	for b.Loop() {
		contentsFileURIs(res, uri)
	}
}
