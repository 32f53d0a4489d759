package trace

import (
	"encoding/json"

	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// SessionView is a session as plain data, what every report shows of it: where it
// is, what it held, and its contract, so that reports never read a
// session.Session.
type SessionView struct {
	Input     string
	Index     int
	StreamKey string
	FirstLine int
	LastLine  int
	// Era is "legacy", "modern" or "unknown".
	Era    string
	Frames int

	Requests      int
	Notifications int
	Responses     int
	Invalid       int

	// HasContract is set when a contract is known (a handshake or a modern
	// request was seen); the fields below are zero otherwise.
	HasContract bool
	Client      Peer
	Server      Peer
	Requested   string
	Answered    string
	// Revision governs the session ("" when unknown).
	Revision spec.Revision
	// Verdict on the negotiation: "echoed", "downgraded", ..., "per request" for
	// the modern era.
	Verdict string
	// ClientLine and ServerLine are the lines of the frames that carried each
	// side's capabilities (0 = not seen).
	ClientLine int
	ServerLine int
}

// Peer is one side of a session: its implementation and its capability object
// (JSON null when not declared or not valid JSON).
type Peer struct {
	Name         string          `json:"name"`
	Version      string          `json:"version"`
	Capabilities json.RawMessage `json:"capabilities"`
}

// ViewOf describes a session as plain data.
func ViewOf(s *session.Session) SessionView {
	v := SessionView{Input: s.Input, Index: s.Index, StreamKey: s.StreamKey, FirstLine: s.FirstLine, LastLine: s.LastLine,
		Era: s.Era.String(), Frames: s.Frames, Requests: s.Requests, Notifications: s.Notifications, Responses: s.Responses, Invalid: s.Invalid,
		Client: Peer{Capabilities: json.RawMessage("null")}, Server: Peer{Capabilities: json.RawMessage("null")}}
	c := s.Contract()
	if c == nil {
		return v
	}
	v.HasContract = true
	v.Client, v.Server = peerOf(c, spec.Client), peerOf(c, spec.Server)
	v.Requested, v.Answered, v.Revision, v.Verdict = c.Requested, c.Answered, c.Revision, verdictOf(c)
	v.ClientLine, v.ServerLine = c.DeclaredLine(spec.Client), c.DeclaredLine(spec.Server)
	return v
}

func peerOf(c *session.Contract, side spec.Side) Peer {
	impl := c.Client
	if side == spec.Server {
		impl = c.Server
	}
	return Peer{Name: impl.Name, Version: impl.Version, Capabilities: rawOrNull(c.Capabilities(side))}
}

// verdictOf names the negotiation's verdict; a modern session negotiates per request.
func verdictOf(c *session.Contract) string {
	if c.Era == session.EraModern {
		return "per request"
	}
	return c.Verdict.String()
}

func rawOrNull(b []byte) json.RawMessage {
	if len(b) == 0 || !json.Valid(b) {
		return json.RawMessage("null")
	}
	return json.RawMessage(b)
}
