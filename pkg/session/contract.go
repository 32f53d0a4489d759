// Package session groups frames into sessions, pairs requests with their responses
// in each direction, and rebuilds the contract that governs every frame: the
// negotiated revision and both sides' declared capabilities.
package session

import (
	"bytes"
	"strconv"
	"strings"
	"unsafe"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Era is the protocol era of a session.
type Era uint8

const (
	// EraUnknown: no initialize and no modern request seen (yet).
	EraUnknown Era = iota
	// EraLegacy: an initialize handshake (2024-11-05 .. 2025-11-25).
	EraLegacy
	// EraModern: stateless 2026-07-28 requests carrying their contract in _meta.
	EraModern
)

func (e Era) String() string {
	switch e {
	case EraLegacy:
		return "legacy"
	case EraModern:
		return "modern"
	}
	return "unknown"
}

// Verdict judges the revision the server answered against the one requested.
type Verdict uint8

const (
	VerdictPending    Verdict = iota // no answer (yet)
	VerdictEchoed                    // answered what was requested
	VerdictDowngraded                // answered an older published revision
	VerdictNotOffered                // answered a newer revision the client never offered
	VerdictUnknown                   // answered (or requested) a string that is no published revision
	VerdictFailed                    // initialize answered with an error
)

func (v Verdict) String() string {
	switch v {
	case VerdictEchoed:
		return "echoed"
	case VerdictDowngraded:
		return "downgraded"
	case VerdictNotOffered:
		return "not offered"
	case VerdictUnknown:
		return "unknown revision"
	case VerdictFailed:
		return "initialize failed"
	}
	return "no answer"
}

// Implementation is clientInfo / serverInfo.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Contract is what governs a frame: the revision and both declarations, with the
// lines they came from so a finding can point at the frame that did not declare.
type Contract struct {
	Era Era
	// Requested is the client's protocolVersion (initialize params, or the request's _meta).
	Requested string
	// Answered is the server's protocolVersion in the initialize result ("" for modern).
	Answered string
	// Revision governs the frames: the negotiated revision when it is a published one,
	// else "" (rules that depend on it cannot judge).
	Revision spec.Revision
	Verdict  Verdict

	// ClientCaps and ServerCaps are the capability objects verbatim (nil: not declared,
	// for example no server/discover result seen in a modern session).
	ClientCaps []byte
	ServerCaps []byte
	Client     Implementation
	Server     Implementation
	// Instructions from the initialize or discover result.
	Instructions string
	// SupportedVersions from a server/discover result.
	SupportedVersions []string

	// RequestRaw and ResultRaw are copies of the declaring frames (at most
	// MaxContractRaw bytes), evidence for reports: the initialize request (or modern
	// request) and the initialize (or server/discover) result.
	RequestRaw []byte
	ResultRaw  []byte

	// Lines of the frames that declared each part (0 = none).
	RequestLine    int // initialize request, or the modern request carrying the client's _meta
	ResultLine     int // initialize result
	ServerCapsLine int // initialize result or server/discover result
	ErrorLine      int // initialize error response

	// declared remembers Declares' recent answers about the declarations in parsed:
	// every gated frame of a session asks about one of a few paths of the same
	// declaration.
	declared [8]declaredAnswer
	nextSlot uint8
	// parsed holds the client's and the server's capability object as a Node, read
	// at its first use (capsNode), of the bytes that start at parsedAt and are
	// parsedLen long.
	parsed    [2]frame.Node
	parsedAt  [2]*byte
	parsedLen [2]int32
	// terms identifies what the contract says within its session (Terms).
	terms uint64
}

// Terms identifies the contract's terms within its session: its revision, era,
// verdict and both declarations. A contract keeps its terms until they change (the
// initialize result answers the request's contract), and a later modern request
// whose _meta repeats the last one gets a contract with the same terms; 0 means
// not known to be shared with any other contract. What tells a message's class
// apart for the rules (rule.Pass.Settled).
func (c *Contract) Terms() uint64 { return c.terms }

// declaredAnswer is one remembered Declares answer about the declaration that
// parsed holds for its side.
type declaredAnswer struct {
	path     string
	of       uint8 // the declaration's index in parsed, plus 1 (0: no answer)
	boolean  bool
	declared bool
}

// capsNode is side's capability object as a Node (the zero Node when it is not
// declared or not JSON), parsed at its first use and kept with the contract while
// the declaration is the same bytes (see declaration).
func (c *Contract) capsNode(side spec.Side) frame.Node {
	i := c.declaration(side)
	if !c.parsed[i].Exists() && c.parsedAt[i] != nil {
		c.parsed[i], _ = frame.Parse(c.Capabilities(side)) // not JSON: read again at each use
	}
	return c.parsed[i]
}

// parse sets the Node of the declaration at index i of parsed: n, read from caps
// (or from bytes equal to them), the declaration's bytes. The answers remembered
// about an earlier declaration are dropped.
func (c *Contract) parse(i int, n frame.Node, caps []byte) {
	c.parsed[i], c.parsedAt[i], c.parsedLen[i] = n, unsafe.SliceData(caps), int32(len(caps))
	for j := range c.declared {
		if int(c.declared[j].of) == i+1 {
			c.declared[j] = declaredAnswer{}
		}
	}
}

// declaration is the index of side's declaration in parsed; when its bytes are
// not those parsed holds (it was replaced), the Node and the answers remembered
// about the earlier declaration are dropped.
func (c *Contract) declaration(side spec.Side) int {
	caps, i := c.ClientCaps, 0
	if side == spec.Server {
		caps, i = c.ServerCaps, 1
	}
	if c.parsedAt[i] != unsafe.SliceData(caps) || int(c.parsedLen[i]) != len(caps) {
		c.parse(i, frame.Node{}, caps) // read at its first use
	}
	return i
}

// capability is the value at path in a capability object: member names separated
// by dots ("resources.listChanged"), each taken literally (a name with '*' or '?'
// is no pattern), the first member of a name; a name of digits picks an element
// of an array. The zero Node when there is none. (What gjson answered for the
// path with its syntax escaped but for the dots.)
func capability(n frame.Node, path string) frame.Node {
	for n.Exists() {
		name, rest, more := strings.Cut(path, ".")
		if n.IsArray() {
			i, err := strconv.ParseUint(name, 10, 63)
			if err != nil {
				return frame.Node{}
			}
			n, _ = n.Index(int(i))
		} else {
			n, _ = n.Get(name)
		}
		if !more {
			return n
		}
		path = rest
	}
	return frame.Node{}
}

// InstructionsTokenBudget is the size in tokens (tokens.Of) above which a server's
// instructions are flagged (MCP1007, handshake): they are paid on every turn.
const InstructionsTokenBudget = 300

// MaxContractRaw bounds the copies of declaring frames a contract keeps.
const MaxContractRaw = 16 << 10

// DeclaredRaw is the frame that carried side's declaration (nil when not kept).
func (c *Contract) DeclaredRaw(side spec.Side) []byte {
	if side == spec.Server {
		return c.ResultRaw
	}
	return c.RequestRaw
}

// Capabilities is side's capability object verbatim (nil: not declared, or not
// in the capture).
func (c *Contract) Capabilities(side spec.Side) []byte {
	if side == spec.Server {
		return c.ServerCaps
	}
	return c.ClientCaps
}

// Declares reports whether side's capability object declares path ("resources",
// "resources.listChanged"). Boolean flags must be true; objects must be present.
// ok=false means that side's declaration is not known, so nothing can be judged.
func (c *Contract) Declares(side spec.Side, path string, boolean bool) (declared, ok bool) {
	caps, i := c.ClientCaps, 0
	if side == spec.Server {
		caps, i = c.ServerCaps, 1
	}
	if caps == nil {
		return false, false
	}
	if c.parsedAt[i] != unsafe.SliceData(caps) || int(c.parsedLen[i]) != len(caps) {
		c.parse(i, frame.Node{}, caps) // replaced (see declaration)
	}
	of := uint8(i + 1)
	for j := range c.declared {
		a := &c.declared[j]
		if a.of == of && a.boolean == boolean && a.path == path {
			return a.declared, true
		}
	}
	v := capability(c.capsNode(side), path)
	if boolean {
		declared = v.Kind() == 't'
	} else {
		declared = v.Exists() && v.Kind() != 'n' && v.Kind() != 'f'
	}
	c.declared[c.nextSlot] = declaredAnswer{path: path, of: of, boolean: boolean, declared: declared}
	c.nextSlot = (c.nextSlot + 1) % uint8(len(c.declared))
	return declared, true
}

// DeclaresGate reports whether the contract declares the capability a gate needs
// (spec.Gate, from the method table): a boolean flag must be true, an object
// present. ok=false means the owner's declaration is not known.
func (c *Contract) DeclaresGate(g spec.Gate) (declared, ok bool) {
	return c.Declares(g.Side, g.Path, g.Boolean())
}

// DeclaresCapability is Declares for a capability of the table (spec.Capability):
// a boolean flag must be true, an object present.
func (c *Contract) DeclaresCapability(side spec.Side, path string) (declared, ok bool) {
	boolean := false
	if capa, found := spec.LookupCapability(side, path); found {
		boolean = capa.Type == "boolean"
	}
	return c.Declares(side, path, boolean)
}

// Lacking says, for a gate the contract does not declare, what its owner declared
// instead: "the server declared resources without listChanged" (the top-level
// capability is there, the sub-capability is not) or "the client declared no
// sampling".
func (c *Contract) Lacking(g spec.Gate) string {
	top, sub, hasSub := strings.Cut(g.Path, ".")
	if declared, _ := c.Declares(g.Side, top, false); hasSub && declared {
		return "the " + g.Side.String() + " declared " + top + " without " + sub
	}
	return "the " + g.Side.String() + " declared no " + top
}

// Declaration says what the owner of a gate declared, as evidence in a finding's
// message, naming the declaring frame as owner says (DeclaredIn, or "its " and
// DeclaredIn from the sender's side): "initialize result (line 2) declared
// resources: {} (no listChanged)", or "initialize request (line 1) declared no
// sampling". When the owner declared nothing at the gate's top level, caps is its
// whole capability object (nil when not in the capture), for the message to quote.
func (c *Contract) Declaration(g spec.Gate, owner string) (text string, caps []byte) {
	top, sub, _ := strings.Cut(g.Path, ".")
	summary := c.CapabilitySummary(g.Side, top)
	if strings.HasPrefix(summary, "no ") {
		return owner + " declared no " + top, c.Capabilities(g.Side)
	}
	text = owner + " declared " + summary
	if sub != "" {
		text += " (no " + sub + ")"
	}
	return text, nil
}

// DeclarationNote is the note on the frame that declared side's capabilities, for
// a finding's related frame: "initialize result (line 2): resources: {}".
func (c *Contract) DeclarationNote(side spec.Side, path string) string {
	top, _, _ := strings.Cut(path, ".")
	return c.DeclaredIn(side) + ": " + c.CapabilitySummary(side, top)
}

// DeclaredLine is the line of the frame that carried side's declaration.
func (c *Contract) DeclaredLine(side spec.Side) int {
	if side == spec.Server {
		return c.ServerCapsLine
	}
	return c.RequestLine
}

// DeclaredIn names the frame that carried side's declaration, for messages:
// "initialize result (line 2)", "server/discover result (line 2)".
func (c *Contract) DeclaredIn(side spec.Side) string {
	line := c.DeclaredLine(side)
	var what string
	switch {
	case c.Era == EraModern && side == spec.Server:
		what = "server/discover result"
	case c.Era == EraModern:
		what = "the request's _meta clientCapabilities"
	case side == spec.Server:
		what = "initialize result"
	default:
		what = "initialize request"
	}
	if line > 0 {
		return what + " (line " + strconv.Itoa(line) + ")"
	}
	return what
}

// CapabilitySummary renders one side's declared capability at path for a message,
// e.g. `resources: {}` or `tools: {"listChanged":true}`; "nothing" when absent.
func (c *Contract) CapabilitySummary(side spec.Side, top string) string {
	v := capability(c.capsNode(side), top)
	if !v.Exists() {
		return "no " + top
	}
	return top + ": " + quote.JSON(view(v.Raw()), quote.MaxJSON)
}

// judgeVersion sets Revision and Verdict from Requested and Answered.
func (c *Contract) judgeVersion() {
	req, reqOK := spec.ParseRevision(c.Requested)
	ans, ansOK := spec.ParseRevision(c.Answered)
	if ansOK {
		c.Revision = ans
	}
	switch {
	case !ansOK || !reqOK:
		c.Verdict = VerdictUnknown
	case ans == req:
		c.Verdict = VerdictEchoed
	case ans.Before(req):
		c.Verdict = VerdictDowngraded
	default:
		c.Verdict = VerdictNotOffered
	}
}

// maxDeclarations bounds the capability objects a Tracker keeps read (Session.declare).
const maxDeclarations = 64

// declare makes caps, a value of the message being tracked, side's capability
// object in c: a copy of its bytes, as every contract keeps its own, and their
// Node, which the contracts of the tracker's sessions that declare the same bytes
// share: a capture of many sessions with the same declarations reads each once.
func (s *Session) declare(c *Contract, side spec.Side, caps frame.Node) {
	raw := bytes.Clone(caps.Raw())
	i := 0
	if side == spec.Server {
		c.ServerCaps, i = raw, 1
	} else {
		c.ClientCaps = raw
	}
	var n frame.Node
	if t := s.tracker; t != nil {
		var ok bool
		if n, ok = t.declarations[view(raw)]; !ok {
			// The tracker's own copy, which no contract holds: the Node reads it.
			key := string(raw)
			n, _ = frame.Parse(unsafe.Slice(unsafe.StringData(key), len(key)))
			if len(t.declarations) >= maxDeclarations {
				clear(t.declarations)
			}
			if t.declarations == nil {
				t.declarations = make(map[string]frame.Node, maxDeclarations)
			}
			t.declarations[key] = n
		}
	}
	c.parse(i, n, raw)
}
