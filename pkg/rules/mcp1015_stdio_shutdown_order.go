package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// StdioShutdownOrder reports a stdio client that ended the server otherwise than
// the lifecycle page says: a signal before (or without) closing its stdin.
var StdioShutdownOrder = &rule.Rule{
	ID:       "MCP1015",
	Name:     "stdio-shutdown-order",
	Severity: rule.SeverityInfo,
	Title:    "A stdio client signalled the server before closing its stdin, not in the shutdown order the lifecycle page gives",
	Anchor:   "the client's first signal",
	Hint:     "shut a stdio server down by closing its stdin, waiting for it to exit, then SIGTERM, then SIGKILL",
	Doc: rule.Doc{
		Sees: "Recordings of stdio sessions that keep the events of the server's process (mcpsleuth record writes the client closing " +
			"the server's stdin, each signal with who sent it, and the exit): the first signal the client sent (a signal the recorder " +
			"received and forwarded) when it came before the client closed the server's stdin, or when the client never closed it " +
			"before the server exited (closing it after the exit counts as never). Signals the recorder sent on its own (SIGTERM, then SIGKILL, after the client hung up and the " +
			"server did not exit) follow the order and are not the client's. Captures without these events are not judged.",
		Why: "Closing stdin is how a stdio server learns that the session is over while it can still finish: flush its logs, answer " +
			"what is in flight, close files and child processes. A signal first (Claude Code sends SIGINT without closing stdin; Gemini " +
			"CLI sends SIGTERM, then closes stdin) cuts that short: a server that does not handle the signal dies mid-write, and one " +
			"that treats SIGINT as a user's interrupt may ask questions or print a banner to a client that is gone. It rarely breaks " +
			"a session, which is why this is info: it explains lost last log lines and half-written files.",
		Fix: "In the client: close the server's stdin, wait for it to exit (a few seconds), then send SIGTERM, wait again, then " +
			"SIGKILL. In the server: treat EOF on stdin as the end of the session, and handle SIGTERM and SIGINT the same way.",
		Bad: `{"ts":"10:00:05.000","event":"signal","signal":"SIGINT","by":"client","text":"received SIGINT: forwarded to the server"}
{"ts":"10:00:05.020","event":"exit","code":130,"text":"the server was killed by interrupt"}`,
		Good: `{"ts":"10:00:05.000","event":"client-closed","text":"the client closed the server's stdin"}
{"ts":"10:00:05.030","event":"exit","code":0,"text":"the server exited"}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "basic/lifecycle#stdio", Says: "For the stdio transport, the client SHOULD initiate shutdown by: First, closing the input stream to the child process (the server); Waiting for the server to exit, or sending SIGTERM if the server does not exit within a reasonable time; Sending SIGKILL if the server does not exit within a reasonable time after SIGTERM."},
		},
	},
	Kinds: rule.NoMessages,
	New:   rule.Stateless(rule.Funcs{OnEnd: judgeShutdownOrder}),
}

// judgeShutdownOrder judges the end of the session's server process.
func judgeShutdownOrder(p *rule.Pass) {
	end := p.Session.Process
	if end == nil {
		return
	}
	var first *session.ProcessEvent
	for i := range end.Signals {
		if end.Signals[i].By == "client" {
			first = &end.Signals[i]
			break
		}
	}
	if first == nil {
		return
	}
	at := rule.Anchor{Line: first.Line, Time: first.Time, Dir: spec.C2S}
	closed := end.StdinClosed
	if closed != nil && end.Exit != nil && closed.Line > end.Exit.Line {
		closed = nil // closed once the server was gone: too late to tell it anything
	}
	switch {
	case closed != nil && closed.Line < first.Line:
		return // stdin first: the signal is the lifecycle's next step
	case closed != nil:
		p.Report(at, rule.Sprintf("the client sent the server %s (line %d) before it closed the server's stdin (line %d): the lifecycle page "+
			"asks for the other order (close stdin, wait, then SIGTERM, then SIGKILL), so the server was signalled while it could still "+
			"have read the end of its input", rule.Text(first.Signal), first.Line, closed.Line).By(spec.Client))
	default:
		p.Report(at, rule.Sprintf("the client sent the server %s (line %d) and never closed the server's stdin before the server exited: "+
			"the lifecycle page asks the client to close stdin first and signal only a server that does not exit (SIGTERM, then SIGKILL)",
			rule.Text(first.Signal), first.Line).By(spec.Client))
	}
}
