// This file holds the modern-era (2026-07-28) contract: built for each request from
// its _meta and the latest server/discover result.

package session

import (
	"bytes"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// requestMeta is what a request's params say about the contract (modern) and progress.
type requestMeta struct {
	version, caps, info frame.Node
	// progressToken is params._meta.progressToken's raw token, aliasing the frame
	// (trackRequest keeps a copy).
	progressToken string
}

// readParams reads params.cursor, params.task and params._meta in one pass over the
// members of params (the values alias the frame, and what the request or its
// contract keeps of them is copied). Of a member given twice, the last one counts,
// as in a JSON decoder.
func readParams(m *Message, r *Request) requestMeta {
	var meta requestMeta
	if len(m.Params) == 0 {
		return meta
	}
	for k, v := range m.ParamsNode().Members {
		switch k {
		case "cursor":
			r.Paginated = !v.IsNull()
		case "task":
			r.TaskAugmented = !v.IsNull()
		case "_meta":
			for k, v := range v.Members {
				switch k {
				case "progressToken":
					meta.progressToken = view(v.Raw())
				case spec.MetaProtocolVersion:
					meta.version = v
				case spec.MetaClientCapabilities:
					meta.caps = v
				case spec.MetaClientInfo:
					meta.info = v
				}
			}
		}
	}
	return meta
}

// modernContract builds the contract of one modern request from its _meta and the
// latest server/discover result. Consecutive requests with the same _meta share one.
func (s *Session) modernContract(m *Message, meta requestMeta, raw []byte) *Contract {
	version := meta.version.Text()
	if prev := s.lastModern; prev != nil && prev.Requested == version && bytes.Equal(prev.ClientCaps, meta.caps.Raw()) && s.discoverLine() == prev.ServerCapsLine && prev.RequestLine != 0 {
		c := *prev
		c.RequestLine, c.RequestRaw = m.Line, raw
		return &c
	}
	c := &Contract{Era: EraModern, Requested: strings.Clone(version), RequestLine: m.Line, RequestRaw: raw}
	s.newTerms(c)
	if meta.caps.Exists() {
		s.declare(c, spec.Client, meta.caps)
	}
	c.Client = implementation(meta.info)
	if rev, ok := spec.ParseRevision(version); ok {
		c.Revision = rev
		s.ModernRevision = rev
		c.Verdict = VerdictEchoed
	} else {
		c.Verdict = VerdictUnknown
	}
	s.copyDiscover(c)
	return c
}

// withoutMeta is the contract of a modern-session request that carried no _meta:
// the session's latest revision, no client declaration.
func (s *Session) withoutMeta(m *Message) *Contract {
	c := &Contract{Era: EraModern, Revision: s.ModernRevision, RequestLine: m.Line}
	if s.lastModern != nil {
		c.Requested = s.lastModern.Requested
		c.Client = s.lastModern.Client
	}
	s.copyDiscover(c)
	return c
}

func (s *Session) discoverLine() int {
	if s.Discover == nil {
		return 0
	}
	return s.Discover.ServerCapsLine
}

func (s *Session) copyDiscover(c *Contract) {
	if d := s.Discover; d != nil {
		c.ServerCaps, c.ServerCapsLine, c.Server, c.Instructions, c.SupportedVersions = d.ServerCaps, d.ServerCapsLine, d.Server, d.Instructions, d.SupportedVersions
		c.ResultRaw = d.ResultRaw
		c.parse(1, d.parsed[1], d.ServerCaps) // read when d was declared, or when c is asked
	}
}
