// This file holds what the initialize and server/discover exchanges add to the
// contract: the results that declare the server, and the revision that governs an
// initialize until its result answers.

package session

import (
	"bytes"
	"strings"
	"unsafe"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// answers reports whether the response to a request of method updates the contract
// (answered).
func answers(method string) bool { return method == "initialize" || method == "server/discover" }

// answered updates the contract from the response to r (initialize, server/discover):
// msg is the response message, raw its bytes (the contract keeps a copy).
func (s *Session) answered(r *Request, line int, isErr bool, msg frame.Node, raw []byte) {
	switch r.Method {
	case "initialize":
		c := r.Contract
		if c == nil {
			return
		}
		s.newTerms(c) // the result or the error settles what the request's contract says
		if isErr {
			c.Verdict, c.ErrorLine = VerdictFailed, line
			return
		}
		res := member(msg, "result") // what is kept is copied below
		c.Answered = strings.Clone(member(res, "protocolVersion").Text())
		if caps := member(res, "capabilities"); caps.Exists() {
			s.declare(c, spec.Server, caps)
		}
		c.Server = implementation(member(res, "serverInfo"))
		c.Instructions = strings.Clone(member(res, "instructions").Text())
		c.ResultLine, c.ServerCapsLine = line, line
		c.ResultRaw = bytes.Clone(raw[:min(len(raw), MaxContractRaw)])
		c.Revision = ""
		c.judgeVersion()
	case "server/discover":
		if isErr {
			return
		}
		res := member(msg, "result") // what is kept is copied below
		d := &Contract{Era: EraModern, ServerCapsLine: line, ResultRaw: bytes.Clone(raw[:min(len(raw), MaxContractRaw)])}
		if caps := member(res, "capabilities"); caps.Exists() {
			s.declare(d, spec.Server, caps)
		}
		d.Server = implementation(member(member(res, "_meta"), spec.MetaServerInfo))
		d.Instructions = strings.Clone(member(res, "instructions").Text())
		values(member(res, "supportedVersions"), func(v frame.Node) bool {
			d.SupportedVersions = append(d.SupportedVersions, strings.Clone(v.Text()))
			return true
		})
		s.Discover = d
		if s.Era == EraUnknown {
			s.Era = EraModern
		}
	}
}

// provisionalRevision governs an initialize exchange until its result answers: the
// requested revision when it is a legacy one. An initialize always selects legacy
// semantics (2026-07-28 basic/versioning: "An initialize request selects legacy
// semantics ... as specified by the negotiated legacy protocol version"), so a client
// that asks for a modern revision there is answered with a legacy one at most as new
// as the newest legacy revision, which governs the request meanwhile. An unknown
// version gives none.
func provisionalRevision(requested string) spec.Revision {
	rev, ok := spec.ParseRevision(requested)
	if !ok {
		return ""
	}
	if !rev.Modern() {
		return rev
	}
	var newest spec.Revision
	for _, r := range spec.Revisions() {
		if !r.Modern() {
			newest = r
		}
	}
	return newest
}

// implementation reads clientInfo/serverInfo, copied out of the frame.
func implementation(v frame.Node) Implementation {
	return Implementation{Name: strings.Clone(member(v, "name").Text()), Version: strings.Clone(member(v, "version").Text())}
}

// view reads bytes as a string without copying them; what is kept of it is cloned.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}
