package frame_test

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// A frame's spec method, looked up as it was read, is what spec.Resolve gives
// for its method: for every method of the spec and names it does not know, in
// requests and notifications read from lines (the decode from the scan's
// tokens), from a method with an escape in it (the decode from the value), in a
// batch's members, and for a frame copied out of the reader (Detach).
func TestSpecMethodIsResolve(t *testing.T) {
	names := []string{"no/such/method", "", "tools/call\u00e9"}
	for _, m := range spec.Methods() {
		names = append(names, m.Name)
	}
	var b strings.Builder
	for i, name := range names {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":%q}`+"\n", i, name)
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":%q}`+"\n", name)
		fmt.Fprintf(&b, `[{"jsonrpc":"2.0","id":%d,"method":%q}]`+"\n", i, name)
	}
	// An escaped slash: the method's value is decoded, not read where it lies.
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":1,"method":"tools\/call"}`+"\n")
	rd, err := frame.NewReader("methods", strings.NewReader(b.String()), frame.Options{Format: "jsonrpc-jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	var arena frame.Arena
	n := 0
	check := func(f *frame.Frame) {
		n++
		want := spec.Resolve(f.Method)
		if got := f.SpecMethod(); got.Index() != want.Index() || got.Name() != want.Name() || got.Known() != want.Known() {
			t.Errorf("line %d: method %q: SpecMethod index %d %q, Resolve index %d %q", f.Line, f.Method, got.Index(), got.Name(), want.Index(), want.Name())
		}
	}
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Kind != frame.RecordFrame {
			continue
		}
		var kept frame.Frame
		rd.Detach(rec.Frame, &arena, &kept, false)
		for _, f := range []*frame.Frame{rec.Frame, &kept} {
			if f.Kind == frame.KindBatch {
				for i := range f.Members {
					check(&f.Members[i])
				}
				continue
			}
			check(f)
		}
	}
	if n < 3*len(names) {
		t.Errorf("only %d frames checked", n)
	}
	if spec.MethodAt(-1).Known() || spec.MethodAt(spec.MethodIndexes()).Known() {
		t.Error("MethodAt answers for an index no method has")
	}
}
