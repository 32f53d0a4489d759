// This file holds direction inference: the side that sent a message whose log did
// not say, from the spec table, the outstanding requests, id sequences and shapes.

package session

import (
	"strconv"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// inferDirection fills in the direction of a message whose log did not say
// (DESIGN.md section 3): from the method's direction in the spec table; a response
// takes the opposite direction of the outstanding request with its id; progress and
// cancellation follow the request they refer to.
func (s *Session) inferDirection(m *Message) {
	// The reason is written out only for a direction left unknown (MCP0003 quotes
	// it); an inferred one says "inferred": nothing reads more of it, and bare
	// captures infer every message's direction (joining the words of each was 3%
	// of the CPU of checking one).
	set := func(d spec.Direction, why ...string) {
		m.Dir = d
		if d == spec.DirUnknown {
			m.DirReason = strings.Join(why, "")
		} else {
			m.DirReason = "inferred"
		}
	}
	switch m.Kind {
	case frame.KindRequest, frame.KindNotification:
		if d, ok := m.Spec().DirectionIn(s.revision()); ok {
			set(d, m.Method, " is sent one way only")
			return
		}
		if d, ok := m.Spec().DirectionIn(""); ok {
			set(d, m.Method, " is sent one way only")
			return
		}
		switch m.Method {
		case "notifications/progress":
			token := m.ProgressToken()
			key := frame.IDKey(token)
			var sent [3]bool
			done, _ := s.doneTokens.Get(key) // the finished request's direction
			if n, ok := s.outstandingTokens()[key]; ok && token != "" {
				sent[spec.C2S], sent[spec.S2C] = n[spec.C2S] > 0, n[spec.S2C] > 0
			}
			switch {
			case sent[spec.C2S] && sent[spec.S2C]:
				set(spec.DirUnknown, "progress token ", token, " is outstanding on both sides")
			case sent[spec.C2S]:
				set(spec.S2C, "progress for a request sent c2s")
			case sent[spec.S2C]:
				set(spec.C2S, "progress for a request sent s2c")
			case done != spec.DirUnknown:
				set(done.Opposite(), "progress for a finished request sent ", done.String())
			default:
				set(spec.DirUnknown, "progress token ", token, " belongs to no outstanding request")
			}
		case "notifications/cancelled":
			id := view(member(m.ParamsNode(), "requestId").Raw())
			key := frame.IDKey(id)
			c2s, s2c := s.outstanding.get(requestKey{spec.C2S, key}), s.outstanding.get(requestKey{spec.S2C, key})
			switch {
			case c2s != nil && s2c == nil:
				set(spec.C2S, "cancels a request the client sent")
			case s2c != nil && c2s == nil:
				set(spec.S2C, "cancels a request the server sent")
			default:
				set(spec.DirUnknown, "requestId ", id, " matches no single outstanding request")
			}
		case "notifications/tasks/status":
			// Sent by the side that created the task, the receiver of a task-augmented
			// request: the side whose CreateTaskResult carried the taskId, and a side
			// that received no request has no task to report on.
			d, known := s.taskSenders.Get(member(m.ParamsNode(), "taskId").Text())
			var augmented [3]bool // task-augmented requests in flight, by direction
			if !known {
				augmented[spec.C2S], augmented[spec.S2C] = s.augmentedOut[spec.C2S] > 0, s.augmentedOut[spec.S2C] > 0
			}
			switch {
			case known:
				set(d, "the task was created by the CreateTaskResult sent ", d.String())
			case augmented[spec.C2S] != augmented[spec.S2C] && augmented[spec.C2S]:
				set(spec.S2C, "only the client has a task-augmented request in flight")
			case augmented[spec.C2S] != augmented[spec.S2C]:
				set(spec.C2S, "only the server has a task-augmented request in flight")
			case s.sentReqs[spec.S2C] == 0 && s.sentReqs[spec.C2S] > 0:
				set(spec.S2C, "the server has sent no requests, so only it can have tasks")
			case s.sentReqs[spec.C2S] == 0 && s.sentReqs[spec.S2C] > 0:
				set(spec.C2S, "the client has sent no requests, so only it can have tasks")
			default:
				set(spec.DirUnknown, m.Method, " can be sent by either side and the log does not say which")
			}
		default:
			if m.Kind == frame.KindRequest {
				if d, why := s.guessRequestDir(m.ID, frame.IDKey(m.ID)); d != spec.DirUnknown {
					set(d, why)
					return
				}
			}
			set(spec.DirUnknown, m.Method, " can be sent by either side and the log does not say which")
		}
	case frame.KindResult, frame.KindError:
		key := frame.IDKey(m.ID)
		c2s, s2c := s.outstanding.get(requestKey{spec.C2S, key}), s.outstanding.get(requestKey{spec.S2C, key})
		switch {
		case c2s != nil && s2c == nil:
			set(spec.S2C, "answers ", c2s.Method, " sent by the client")
		case s2c != nil && c2s == nil:
			set(spec.C2S, "answers ", s2c.Method, " sent by the server")
		case c2s != nil && s2c != nil:
			switch d := resultShape(m); {
			case d != spec.DirUnknown:
				set(d, "both sides have id ", m.ID, " outstanding; the result's members say the ", spec.Sender(d).String(), " sent it")
			case m.Kind == frame.KindError:
				set(d, "both sides have id ", m.ID, " outstanding, and an error response does not say which side sent it")
			default:
				set(d, "both sides have id ", m.ID, " outstanding, and the result's members do not say which side sent it")
			}
		default:
			set(spec.DirUnknown, "id ", m.ID, " matches no outstanding request")
		}
	}
}

// guessRequestDir infers the direction of a request that either side may send (ping)
// from the id sequences of the two sides; id is the raw token, key its IDKey.
func (s *Session) guessRequestDir(id, key string) (spec.Direction, string) {
	n, err := strconv.ParseInt(key, 10, 64)
	if err == nil {
		c, sv := s.sentReqs[spec.C2S] > 0 && n == s.lastID[spec.C2S]+1, s.sentReqs[spec.S2C] > 0 && n == s.lastID[spec.S2C]+1
		switch {
		case c && !sv:
			return spec.C2S, "id " + id + " continues the client's id sequence"
		case sv && !c:
			return spec.S2C, "id " + id + " continues the server's id sequence"
		}
		// SDKs number their requests upwards: an id at or below the last one a side
		// used is not that side's next request (a server's first ping, id 0 or 1, after
		// the client's initialize took the same number).
		cPast, sPast := s.sentReqs[spec.C2S] > 0 && n <= s.lastID[spec.C2S], s.sentReqs[spec.S2C] > 0 && n <= s.lastID[spec.S2C]
		switch {
		case cPast && !sPast:
			return spec.S2C, "id " + id + " does not continue the client's id sequence (its last id was " + strconv.FormatInt(s.lastID[spec.C2S], 10) + ")"
		case sPast && !cPast:
			return spec.C2S, "id " + id + " does not continue the server's id sequence (its last id was " + strconv.FormatInt(s.lastID[spec.S2C], 10) + ")"
		}
	}
	if s.sentReqs[spec.S2C] == 0 {
		return spec.C2S, "the server has sent no requests so far"
	}
	return spec.DirUnknown, ""
}

// resultShape guesses who sent a result from its members.
func resultShape(m *Message) spec.Direction {
	if m.Kind != frame.KindResult {
		return spec.DirUnknown
	}
	d := spec.DirUnknown
	content := false
	m.ResultNode().Members(func(k string, _ frame.Node) bool {
		switch k {
		case "protocolVersion", "capabilities", "tools", "resources", "resourceTemplates", "prompts", "contents", "messages", "completion", "isError", "structuredContent", "supportedVersions", "resultType", "inputRequests", "ttlMs", "cacheScope":
			d = spec.S2C
			return false
		case "roots", "model", "role", "action", "stopReason":
			d = spec.C2S
			return false
		case "content":
			content = true // a tool result, unless a sampling or elicitation member says otherwise
		}
		return true
	})
	if d == spec.DirUnknown && content {
		d = spec.S2C
	}
	return d
}

func (s *Session) revision() spec.Revision {
	if c := s.current(); c != nil {
		return c.Revision
	}
	return ""
}
