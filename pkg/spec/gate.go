package spec

// Gate is the capability a message needs. Side is whose capability object holds it
// (the "server." or "client." prefix of the gate column of methods.tsv) and Path the
// dotted path under it ("resources.listChanged", "sampling",
// "tasks.requests.tools.call"). Extension is set instead for "ext:..." gates
// (extension-methods.tsv). The zero Gate means no gate ("none").
type Gate struct {
	Side      Side
	Path      string
	Extension string
}

// None reports whether g is the zero Gate, that is, the message is not gated.
func (g Gate) None() bool {
	return g == Gate{}
}

// String returns the gate as written in the TSV files:
// "server.resources.listChanged", "client.sampling",
// "ext:io.modelcontextprotocol/tasks" or "none".
func (g Gate) String() string {
	switch {
	case g.Extension != "":
		return extGatePrefix + g.Extension
	case g.None():
		return noGate
	}
	return g.Side.String() + "." + g.Path
}

// Boolean reports whether the gated capability is a boolean flag that must be true
// (listChanged, subscribe) rather than an object whose presence suffices. It is
// false for the zero Gate, for extension gates and for paths that capabilities.tsv
// does not define.
func (g Gate) Boolean() bool {
	if g.Extension != "" || g.None() {
		return false
	}
	c, ok := capabilityTable().lookup(g.Side, g.Path)
	return ok && c.Type == capTypeBoolean
}
