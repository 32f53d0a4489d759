package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Stdio is the stdio proxy: the client talks to it on Stdin and Stdout as it
// would to the server, and it runs the server as a child process, forwarding
// every chunk both ways as it arrives and recording each line once it is whole.
// A line is recorded before the chunk that completes it is forwarded, so an
// answer is never recorded before the message it answers.
type Stdio struct {
	// Command is the server and its arguments.
	Command []string
	// Stdin and Stdout are the client's side; Stderr receives the server's
	// stderr unchanged (and the proxy's own notes are recorded, not printed).
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Recording receives the records.
	Recording *Recording
	// Signals, when set, delivers signals for the server (the proxy forwards
	// them and records that it did).
	Signals <-chan os.Signal
	// HangupGrace is how long the server may run on after the client closed its
	// stdin before it is sent SIGTERM, and then after that SIGKILL (0: 5 seconds).
	HangupGrace time.Duration
}

// Exit is how the server ended.
type Exit struct {
	// Code is its exit status; for a server killed by a signal, 128 plus the
	// signal's number (as a shell reports it).
	Code int
	// Signal names the signal that killed it ("" when it exited).
	Signal string
}

// StartError is a server that could not be started at all.
type StartError struct {
	Command string
	Err     error
}

func (e *StartError) Error() string {
	return fmt.Sprintf("mcpsleuth: record: cannot start %s: %v", e.Command, e.Err)
}

func (e *StartError) Unwrap() error { return e.Err }

// Run starts the server and proxies until it exits, then records its exit. It
// returns once the server has exited and its stdout and stderr are read to
// their end (a client still connected sees our stdout end when the caller
// exits). A server that exits leaving a process of its own holding them open is
// read for drainGrace more, then no longer: the session ended with the server.
// Reading the client's stdin may still be blocked then: Run does not wait for it.
func (p *Stdio) Run(ctx context.Context) (Exit, error) {
	if len(p.Command) == 0 {
		return Exit{}, errors.New("mcpsleuth: record: no server command to run")
	}
	rec := p.Recording
	cmd := exec.Command(p.Command[0], p.Command[1:]...)
	toServer, err := cmd.StdinPipe()
	if err != nil {
		return Exit{}, &StartError{Command: p.Command[0], Err: err}
	}
	// The server's stdout and stderr are pipes of our own, not exec's: Wait then
	// waits for the process alone, and never closes what we are still reading.
	fromServer, stdoutW, err := os.Pipe()
	if err != nil {
		return Exit{}, &StartError{Command: p.Command[0], Err: err}
	}
	serverErr, stderrW, err := os.Pipe()
	if err != nil {
		fromServer.Close()
		stdoutW.Close()
		return Exit{}, &StartError{Command: p.Command[0], Err: err}
	}
	defer fromServer.Close()
	defer serverErr.Close()
	cmd.Stdout, cmd.Stderr = stdoutW, stderrW
	rec.start(p.Command)
	err = cmd.Start()
	stdoutW.Close() // the server holds them now
	stderrW.Close()
	if err != nil {
		rec.Event("start-failed", nil, "the server could not be started: %v", err)
		return Exit{}, &StartError{Command: p.Command[0], Err: err}
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	hungUp := make(chan struct{})
	go p.clientToServer(toServer, hungUp)

	var out sync.WaitGroup
	out.Add(2)
	go func() {
		defer out.Done()
		p.serverToClient(fromServer)
	}()
	go func() {
		defer out.Done()
		p.serverStderr(serverErr)
	}()
	outputDone := make(chan struct{})
	go func() {
		out.Wait()
		close(outputDone)
	}()

	grace := p.HangupGrace
	if grace <= 0 {
		grace = 5 * time.Second
	}
	var deadline, draining <-chan time.Time
	var escalate []syscall.Signal
	var waitErr error
	running, reading := true, true
	for running || reading {
		select {
		case <-outputDone:
			outputDone, reading = nil, false
		case waitErr = <-exited:
			// Signals are for a server that runs: none is sent, or said to be
			// sent, once it has exited.
			exited, running, deadline, escalate = nil, false, nil, nil
			if reading {
				draining = time.After(drainGrace)
			}
		case <-draining:
			draining = nil
			rec.Event("output-held", nil, "the server exited and a process it started still holds its stdout or stderr open %s later: stopped reading them", drainGrace)
			fromServer.Close() // the pumps' reads end
			serverErr.Close()
		case <-hungUp:
			hungUp = nil
			if running {
				deadline = time.After(grace)
				escalate = []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL}
			}
		case <-deadline:
			if len(escalate) == 0 {
				deadline = nil
				break
			}
			sig := escalate[0]
			escalate = escalate[1:]
			rec.Signal(signalName(sig), "recorder", "the server still runs %s after the client closed its stdin: sent %s", grace, signalName(sig))
			_ = cmd.Process.Signal(sig)
			deadline = time.After(grace)
		case sig := <-p.Signals:
			if running {
				name := sig.String()
				if s, ok := sig.(syscall.Signal); ok {
					name = signalName(s)
				}
				rec.Signal(name, "client", "received %s: forwarded to the server", name)
				_ = cmd.Process.Signal(sig)
			}
		case <-ctx.Done():
			if running {
				rec.Signal("SIGKILL", "recorder", "recording cancelled: killing the server")
				_ = cmd.Process.Kill()
			}
			ctx = context.Background()
		}
	}
	exit := exitOf(cmd.ProcessState, waitErr)
	code := exit.Code
	switch {
	case exit.Signal != "":
		rec.Event("exit", &code, "the server was killed by %s", exit.Signal)
	case code != 0:
		rec.Event("exit", &code, "the server exited with status %d", code)
	default:
		rec.Event("exit", &code, "the server exited")
	}
	return exit, nil
}

// drainGrace is how long the server's stdout and stderr are read after it
// exited, when a process it started still holds them open.
const drainGrace = 2 * time.Second

// clientToServer forwards the client's stdin to the server and records its
// lines; at its end it closes the server's stdin, as the client closed ours.
func (p *Stdio) clientToServer(toServer io.WriteCloser, hungUp chan<- struct{}) {
	rec := p.Recording
	split := lines{max: MaxLine}
	whole := func(parts [][]byte) { rec.frameParts(spec.C2S, parts) }
	tooLong := func(n int) {
		rec.Event("line-too-long", nil, "a line of %d bytes from the client crossed unchanged but is not recorded (over %d bytes)", n, MaxLine)
	}
	forwarding := true
	buf := make([]byte, 64<<10)
	for {
		n, err := p.Stdin.Read(buf)
		if n > 0 {
			split.feedParts(buf[:n], whole, tooLong)
			if forwarding {
				if _, werr := toServer.Write(buf[:n]); werr != nil {
					rec.Event("server-gone", nil, "cannot forward the client's messages to the server: %v", werr)
					forwarding = false
				}
			}
		}
		if err != nil {
			split.endParts(whole, tooLong)
			if errors.Is(err, io.EOF) {
				rec.Event("client-closed", nil, "the client closed the server's stdin")
			} else {
				rec.Event("client-closed", nil, "reading the client failed: %v", err)
			}
			toServer.Close()
			close(hungUp)
			return
		}
	}
}

// serverToClient forwards the server's stdout to the client and records its
// lines. A client that stopped reading does not stop the recording.
func (p *Stdio) serverToClient(fromServer io.Reader) {
	rec := p.Recording
	split := lines{max: MaxLine}
	whole := func(parts [][]byte) { rec.frameParts(spec.S2C, parts) }
	tooLong := func(n int) {
		rec.Event("line-too-long", nil, "a line of %d bytes from the server crossed unchanged but is not recorded (over %d bytes)", n, MaxLine)
	}
	forwarding := true
	buf := make([]byte, 64<<10)
	for {
		n, err := fromServer.Read(buf)
		if n > 0 {
			split.feedParts(buf[:n], whole, tooLong)
			if forwarding {
				if _, werr := p.Stdout.Write(buf[:n]); werr != nil {
					rec.Event("client-gone", nil, "the client stopped reading: %v (the server's output is still recorded)", werr)
					forwarding = false
				}
			}
		}
		if err != nil {
			split.endParts(whole, tooLong)
			return
		}
	}
}

// serverStderr passes the server's stderr through and records its lines as context.
func (p *Stdio) serverStderr(serverErr io.Reader) {
	rec := p.Recording
	split := lines{max: 1 << 20}
	tooLong := func(n int) {
		rec.Event("line-too-long", nil, "a stderr line of %d bytes is not recorded", n)
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := serverErr.Read(buf)
		if n > 0 {
			split.feed(buf[:n], rec.Stderr, tooLong)
			if p.Stderr != nil {
				_, _ = p.Stderr.Write(buf[:n])
			}
		}
		if err != nil {
			split.end(rec.Stderr, tooLong)
			return
		}
	}
}

// exitOf reads how a process ended.
func exitOf(st *os.ProcessState, err error) Exit {
	if st == nil {
		return Exit{Code: 1}
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Exit{Code: 128 + int(ws.Signal()), Signal: signalName(ws.Signal())}
	}
	return Exit{Code: st.ExitCode()}
}

func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}
