package schema

import (
	"sync"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Compiled is a run-wide store of compiled published schemas (tools' inputSchema and
// outputSchema), keyed by their content and the dialect a revision defaults to: the
// same tool list served in every session of an archive is compiled once per run, not
// once per session and rule. It is safe for concurrent use (a compiled schema is only
// read after compilation) and bounded by the bytes of the schemas it keeps.
type Compiled struct {
	mu    sync.Mutex
	by    map[Dialect]map[string]*Published
	bytes int
}

// MaxCompiledBytes bounds the schema text a Compiled keeps; past it the store starts
// again empty.
const MaxCompiledBytes = 16 << 20

// NewCompiled returns an empty store.
func NewCompiled() *Compiled { return &Compiled{by: map[Dialect]map[string]*Published{}} }

// Compile returns the compiled form of a published schema under a revision, compiling
// it on first use. raw may alias a frame: the store keeps its own copy.
func (c *Compiled) Compile(raw []byte, rev spec.Revision) *Published {
	def := DefaultDialect(rev)
	c.mu.Lock()
	p, ok := c.by[def][string(raw)]
	c.mu.Unlock()
	if ok {
		return p
	}
	// Compiled outside the lock: two inputs asking for the same new schema at once
	// both compile it, and the second result replaces an identical first.
	p = CompilePublished(raw, rev)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes+len(raw) > MaxCompiledBytes {
		clear(c.by)
		c.bytes = 0
	}
	m := c.by[def]
	if m == nil {
		m = map[string]*Published{}
		c.by[def] = m
	}
	if _, had := m[string(raw)]; !had {
		m[string(raw)] = p
		c.bytes += len(raw)
	}
	return p
}
