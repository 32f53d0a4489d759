package session_test

import (
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// TestTaskStatusDirectionInBareLog strips the envelopes of a real tasks session (the
// TypeScript SDK client and the everything server, each creating tasks for the other)
// and checks that every notifications/tasks/status is placed as recorded: after the
// CreateTaskResult that created its task (the task's receiver sends the statuses the
// same way), or, when it comes before that result, from the only side with a
// task-augmented request in flight.
func TestTaskStatusDirectionInBareLog(t *testing.T) {
	const name = "ts/ts-everything-tasks-2025-11-25.jsonl"
	text := readFixture(t, name)
	envTr := run(t, name, text, frame.Options{})
	bareTr := run(t, name, bare(t, text), frame.Options{})
	if len(envTr.msgs) != len(bareTr.msgs) {
		t.Fatalf("envelope: %d messages, bare: %d", len(envTr.msgs), len(bareTr.msgs))
	}
	statuses := map[spec.Direction]int{}
	for i, e := range envTr.msgs {
		b := bareTr.msgs[i]
		if b.Dir != e.Dir && b.Dir != spec.DirUnknown {
			t.Errorf("%s: bare direction %s (%s), recorded %s", b, b.Dir, b.DirReason, e.Dir)
		}
		if e.Method != "notifications/tasks/status" {
			continue
		}
		statuses[e.Dir]++
		if b.Dir != e.Dir || !strings.HasPrefix(b.DirReason, "inferred") {
			t.Errorf("%s: bare direction %s (%s), recorded %s", b, b.Dir, b.DirReason, e.Dir)
		}
	}
	// The capture has statuses both ways: the server's about its research tasks and
	// the client's about the sampling and elicitation tasks it created.
	if statuses[spec.S2C] == 0 || statuses[spec.C2S] == 0 {
		t.Fatalf("want notifications/tasks/status in both directions, got %v", statuses)
	}
}
