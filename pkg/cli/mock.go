package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/mock"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/record"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/script"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

func mockCommand(env Env) *cli.Command {
	policies := make([]string, len(mock.Policies))
	for i, p := range mock.Policies {
		policies[i] = string(p)
	}
	return &cli.Command{
		Name:  "mock",
		Usage: "serve a captured session as a server (stdio, or Streamable HTTP with --http): the captured answers, notifications and bugs reach your client",
		Description: "A client's message is matched with one the captured client sent, and what the captured server\n" +
			"sent after it (the response with the client's id, notifications, its own requests) is sent back.\n" +
			"--match params (default): the same method and params (their _meta aside; initialize, server/discover\n" +
			"and ping by method); --match method: by method alone; --match order: the captured client's order.\n" +
			"A request the capture cannot answer gets a JSON-RPC error saying why, and a line on stderr; a\n" +
			"request the captured server never answered is not answered. CAPTURE#N serves session N.",
		ArgsUsage: "CAPTURE[#N]",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "http", Usage: "serve Streamable HTTP on `ADDR` (127.0.0.1:8080; port 0 picks one) instead of stdio"},
			&cli.StringFlag{Name: "match", Value: string(mock.ByParams), Usage: "how a client's message finds its captured twin: " + strings.Join(policies, ", ")},
			&cli.StringFlag{Name: "out", Usage: "record the mock's session to `FILE` as envelope JSONL (what check reads)"},
		}, readFlags()...),
		Action: func(ctx context.Context, c *cli.Command) error { return runMock(ctx, env, c) },
	}
}

func runMock(ctx context.Context, env Env, c *cli.Command) error {
	policy := mock.Policy(strings.ToLower(c.String("match")))
	if !slices.Contains(mock.Policies, policy) {
		return usageErr("mcpsleuth: --match must be params, method or order, not %q", c.String("match"))
	}
	if c.Args().Len() != 1 {
		return usageErr("mcpsleuth: mock takes one capture (CAPTURE or CAPTURE#N), not %d", c.Args().Len())
	}
	s, name, err := loadScript(env, c, c.Args().First())
	if err != nil {
		return err
	}
	served := 0
	for _, msg := range s.Messages {
		if msg.Dir == spec.S2C {
			served++
		}
	}
	if served == 0 {
		return usageErr("mcpsleuth: mock: %s has no message of the server to serve", report.Safe(c.Args().First()))
	}
	opt := mock.Options{Policy: policy, Log: env.Stderr}
	if out := c.String("out"); out != "" {
		f, err := os.Create(out)
		if err != nil {
			return usageErr("mcpsleuth: %s: cannot write the recording: %v", report.Safe(out), unwrapPath(err))
		}
		defer f.Close()
		rec := record.NewRecording(f, record.Options{})
		defer rec.Close()
		opt.Crossed = rec.Frame
	}
	m := mock.New(s, opt)
	addr := c.String("http")
	if addr == "" {
		fmt.Fprintf(env.Stderr, "mcpsleuth: mock: %s: serving %s on stdio\n", report.Safe(name), report.Safe(m.Summary()))
		return m.ServeStdio(env.Stdin, env.Stdout)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return usageErr("mcpsleuth: mock: cannot listen on %s: %v", report.Safe(addr), err)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Handler: m.Handler()}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	fmt.Fprintf(env.Stderr, "mcpsleuth: mock: %s: serving %s on http://%s/mcp (any path)\n", report.Safe(name), report.Safe(m.Summary()), ln.Addr())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// loadScript reads a capture's session (CAPTURE#N, default 1) as a script, in
// the analysis's one pass.
func loadScript(env Env, c *cli.Command, arg string) (*script.Script, string, error) {
	ref, err := parseSessionRef(arg)
	if err != nil {
		return nil, "", err
	}
	fopt, err := frameOptions(c)
	if err != nil {
		return nil, "", err
	}
	in, err := openInput(env, ref.name)
	if err != nil {
		return nil, "", &exitError{code: ExitUsage, msg: err.Error()}
	}
	defer in.Close()
	return scriptOf(ref, in, fopt)
}

func scriptOf(ref sessionRef, in io.Reader, fopt frame.Options) (*script.Script, string, error) {
	keep := script.NewAnalysis(ref.session - 1)
	var s *script.Script
	sessions := 0
	res, err := driver.Run(ref.name, in, nil, driver.RunOptions{Frame: fopt, Discard: true, Analyses: []*rule.Analysis{keep},
		OnSession: func(sr *rule.SessionResult) {
			sessions++
			if got := script.Of(sr.ResultOf(keep)); got != nil {
				s = got
			}
		}})
	if err != nil {
		return nil, "", &exitError{code: ExitUsage, msg: err.Error()}
	}
	if res.Broken != nil {
		return nil, "", &exitError{code: ExitUsage, msg: fmt.Sprintf("%v", res.Broken)}
	}
	if s == nil {
		return nil, "", usageErr("mcpsleuth: %s has %s, not a session %d", report.Safe(ref.name), quote.Count(sessions, "session"), ref.session)
	}
	return s, ref.name, nil
}
