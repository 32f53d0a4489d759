// This file holds what the initialize and server/discover exchanges add to the
// contract: the results that declare the server, and the revision that governs an
// initialize until its result answers.

package session

import (
	"bytes"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// answered updates the contract from the response to r (initialize, server/discover).
func (s *Session) answered(r *Request, line int, isErr bool, raw []byte) {
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
		res := gjson.Get(view(raw), "result") // what is kept is copied below
		c.Answered = strings.Clone(res.Get("protocolVersion").String())
		if caps := res.Get("capabilities"); caps.Exists() {
			c.ServerCaps = []byte(caps.Raw)
		}
		c.Server = implementation(res.Get("serverInfo"))
		c.Instructions = strings.Clone(res.Get("instructions").String())
		c.ResultLine, c.ServerCapsLine = line, line
		c.ResultRaw = bytes.Clone(raw[:min(len(raw), MaxContractRaw)])
		c.Revision = ""
		c.judgeVersion()
	case "server/discover":
		if isErr {
			return
		}
		res := gjson.Get(view(raw), "result") // what is kept is copied below
		d := &Contract{Era: EraModern, ServerCapsLine: line, ResultRaw: bytes.Clone(raw[:min(len(raw), MaxContractRaw)])}
		if caps := res.Get("capabilities"); caps.Exists() {
			d.ServerCaps = []byte(caps.Raw)
		}
		d.Server = implementation(res.Get(`_meta.io\.modelcontextprotocol/serverInfo`))
		d.Instructions = strings.Clone(res.Get("instructions").String())
		for _, v := range res.Get("supportedVersions").Array() {
			d.SupportedVersions = append(d.SupportedVersions, strings.Clone(v.String()))
		}
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
func implementation(v gjson.Result) Implementation {
	return Implementation{Name: strings.Clone(v.Get("name").String()), Version: strings.Clone(v.Get("version").String())}
}

// view reads bytes as a string without copying them; what is kept of it is cloned.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}
