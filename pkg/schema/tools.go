package schema

import (
	"bytes"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Tools remembers the tools one session's server listed (from tools/list results):
// name -> published schemas (compiled by the run's Compiled store). It is per-session
// state of a rule, not safe for concurrent use, and bounded: at most MaxTools tools
// are kept.
type Tools struct {
	byName map[string]*Tool
	// Dropped counts tools not remembered because MaxTools was reached.
	Dropped int
}

// Limits of a Tools registry.
const (
	MaxTools = 1024
	// MaxSchemaBytes bounds the size of a published schema kept for compilation.
	MaxSchemaBytes = 256 << 10
)

// Tool is one listed tool.
type Tool struct {
	Name string
	// Line is the line of the tools/list result that listed it.
	Line int
	// Revision governed that result (it decides the default dialect).
	Revision spec.Revision
	// Input and Output are the raw published schemas (copies; nil when absent).
	Input, Output []byte
	// TooLarge is set when a schema exceeded MaxSchemaBytes and was not kept.
	TooLarge bool
	// input and output are Input and Output compiled, once asked for.
	input, output *Published
}

// CompiledInput is Input compiled through the run's store c, asked of the store
// once per listed tool (not for every call: the store finds a schema by its text).
func (t *Tool) CompiledInput(c *Compiled) *Published {
	if t.input == nil {
		t.input = c.Compile(t.Input, t.Revision)
	}
	return t.input
}

// CompiledOutput is Output compiled, as CompiledInput.
func (t *Tool) CompiledOutput(c *Compiled) *Published {
	if t.output == nil {
		t.output = c.Compile(t.Output, t.Revision)
	}
	return t.output
}

// NewTools returns an empty registry.
func NewTools() *Tools {
	return &Tools{byName: map[string]*Tool{}}
}

// Listed records the tools of a tools/list result (its JSON text): ListedNode of
// the text parsed. A result read from a frame is better handed over as its Node
// (ListedNode(m.ResultNode(), ...)): it is not scanned again.
func (t *Tools) Listed(result []byte, line int, rev spec.Revision, paginated bool) {
	n, _ := frame.Parse(result) // the zero Node when it is not JSON: no tools
	t.ListedNode(n, line, rev, paginated)
}

// ListedNode records the tools of a tools/list result. A result that answers a
// request without a cursor starts the list again; a later page adds to it. The
// result is read in place (it may be a frame's): what a Tool keeps is copied.
//
// The tools are the values of the result's (first) "tools" member: the elements of
// an array, the member values of an object; each one with a string "name" is a
// tool (as the gjson reading of before, which TestListedReadsAsBefore pins).
func (t *Tools) ListedNode(result frame.Node, line int, rev spec.Revision, paginated bool) {
	if !paginated {
		clear(t.byName)
	}
	tools, _ := result.Get("tools")
	for item := range values(tools) {
		nameNode, _ := item.Get("name")
		name, ok := nameNode.Str()
		if !ok {
			continue
		}
		if _, known := t.byName[name]; !known && len(t.byName) >= MaxTools {
			t.Dropped++
			continue
		}
		tool := &Tool{Name: strings.Clone(name), Line: line, Revision: rev}
		in, _ := item.Get("inputSchema")
		tool.Input, tool.TooLarge = keepSchema(in)
		out, _ := item.Get("outputSchema")
		var large bool
		tool.Output, large = keepSchema(out)
		tool.TooLarge = tool.TooLarge || large
		t.byName[tool.Name] = tool
	}
}

// values yields the values a container holds: an array's elements, an object's
// member values (duplicates included), in order; nothing for any other value. (A
// scalar is no container: gjson's ForEach yielded it once, but nothing read in it
// (a member, an element) exists.)
func values(n frame.Node) func(yield func(frame.Node) bool) {
	return func(yield func(frame.Node) bool) {
		switch {
		case n.IsArray():
			for _, v := range n.Elements {
				if !yield(v) {
					return
				}
			}
		case n.IsObject():
			for _, v := range n.Members {
				if !yield(v) {
					return
				}
			}
		}
	}
}

func keepSchema(v frame.Node) ([]byte, bool) {
	if !v.Exists() {
		return nil, false
	}
	raw := v.Raw()
	if len(raw) > MaxSchemaBytes {
		return nil, true
	}
	return bytes.Clone(raw), false
}

// Lookup returns a listed tool (nil when none of that name was listed).
func (t *Tools) Lookup(name string) *Tool {
	return t.byName[name]
}

// Len is the number of remembered tools.
func (t *Tools) Len() int { return len(t.byName) }
