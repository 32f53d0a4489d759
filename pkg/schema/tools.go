package schema

import (
	"strings"

	"github.com/tidwall/gjson"

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

// Listed records the tools of a tools/list result. A result that answers a request
// without a cursor starts the list again; a later page adds to it.
func (t *Tools) Listed(result []byte, line int, rev spec.Revision, paginated bool) {
	if !paginated {
		clear(t.byName)
	}
	// The result is read in place (gjson.GetBytes would copy the whole list first):
	// what a Tool keeps is copied.
	gjson.Get(viewString(result), "tools").ForEach(func(_, item gjson.Result) bool {
		name := item.Get("name")
		if name.Type != gjson.String {
			return true
		}
		if _, known := t.byName[name.Str]; !known && len(t.byName) >= MaxTools {
			t.Dropped++
			return true
		}
		tool := &Tool{Name: strings.Clone(name.Str), Line: line, Revision: rev}
		tool.Input, tool.TooLarge = keepSchema(item.Get("inputSchema"))
		var large bool
		tool.Output, large = keepSchema(item.Get("outputSchema"))
		tool.TooLarge = tool.TooLarge || large
		t.byName[tool.Name] = tool
		return true
	})
}

func keepSchema(v gjson.Result) ([]byte, bool) {
	if !v.Exists() {
		return nil, false
	}
	if len(v.Raw) > MaxSchemaBytes {
		return nil, true
	}
	return []byte(v.Raw), false
}

// Lookup returns a listed tool (nil when none of that name was listed).
func (t *Tools) Lookup(name string) *Tool {
	return t.byName[name]
}

// Len is the number of remembered tools.
func (t *Tools) Len() int { return len(t.byName) }
