// This file holds what a session remembers after a request is done: the progress
// tokens of finished requests and the senders of created tasks, so that late
// progress and task status can still be placed in a log without directions.

package session

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// maxDoneTokens bounds the progress tokens of finished requests remembered.
const maxDoneTokens = 1024

// rememberToken keeps the progress token of a finished request for a while, so that
// late progress in a log without directions can still be placed.
func (s *Session) rememberToken(r *Request) {
	if r.ProgressKey == "" {
		return
	}
	if s.doneTokens == nil {
		s.doneTokens = map[string]spec.Direction{}
	}
	s.doneTokens[r.ProgressKey] = r.Dir
	s.doneOrder = append(s.doneOrder, r.ProgressKey)
	if len(s.doneOrder) > maxDoneTokens {
		delete(s.doneTokens, s.doneOrder[0])
		s.doneOrder = s.doneOrder[1:]
	}
}

// rememberTask keeps the direction of a CreateTaskResult by its taskId, so that the
// task's status notifications can be placed in a log without directions.
func (s *Session) rememberTask(m *Message) {
	id := m.ResultGet("task.taskId")
	if id.Type != gjson.String {
		return
	}
	if s.taskSenders == nil {
		s.taskSenders = map[string]spec.Direction{}
	}
	key := strings.Clone(id.Str)
	if _, ok := s.taskSenders[key]; !ok {
		s.taskOrder = append(s.taskOrder, key)
	}
	s.taskSenders[key] = m.Dir
	if len(s.taskOrder) > maxDoneTokens {
		delete(s.taskSenders, s.taskOrder[0])
		s.taskOrder = s.taskOrder[1:]
	}
}
