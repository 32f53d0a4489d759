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

// Start begins what a tools/list result lists: a result that answers a request
// without a cursor starts the list again; a later page adds to it.
func (t *Tools) Start(paginated bool) {
	if !paginated {
		clear(t.byName)
	}
}

// Add records one listed tool by its name, with the first inputSchema and
// outputSchema of its definition. The definition is read in place (it may be a
// frame's): what a Tool keeps is copied.
func (t *Tools) Add(name string, definition frame.Node, line int, rev spec.Revision) {
	if _, known := t.byName[name]; !known && len(t.byName) >= MaxTools {
		t.Dropped++
		return
	}
	tool := &Tool{Name: strings.Clone(name), Line: line, Revision: rev}
	in, _ := definition.Get("inputSchema")
	tool.Input, tool.TooLarge = keepSchema(in)
	out, _ := definition.Get("outputSchema")
	var large bool
	tool.Output, large = keepSchema(out)
	tool.TooLarge = tool.TooLarge || large
	t.byName[tool.Name] = tool
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
