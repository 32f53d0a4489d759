// This file holds what a session remembers after a request is done: the progress
// tokens of finished requests and the senders of created tasks, so that late
// progress and task status can still be placed in a log without directions.

package session

import "strings"

// maxDoneTokens bounds the progress tokens of finished requests remembered.
const maxDoneTokens = 1024

// rememberToken keeps the progress token of a finished request for a while, so that
// late progress in a log without directions can still be placed.
func (s *Session) rememberToken(r *Request) {
	if r.ProgressKey == "" {
		return
	}
	s.doneTokens.Put(r.ProgressKey, r.Dir, maxDoneTokens)
}

// rememberTask keeps the direction of a CreateTaskResult by its taskId, so that the
// task's status notifications can be placed in a log without directions.
func (s *Session) rememberTask(m *Message) {
	v, _ := m.ResultNode().Path("task", "taskId")
	id, ok := v.Str()
	if !ok {
		return
	}
	s.taskSenders.Put(strings.Clone(id), m.Dir, maxDoneTokens)
}
