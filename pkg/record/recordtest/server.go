// Package recordtest is a real MCP server for the recorder's tests: the official
// Go SDK serving stdio, run as a child process by re-executing a test binary (a
// testscript command, or a TestMain that calls Main). It keeps the bytes it read
// and wrote when asked to, so that a test can compare what crossed the proxy with
// what the server saw.
package recordtest

//lint:file-ignore SA1019 sampling is deprecated as of 2026-07-28 (SEP-2577), not removed: servers still send it, and its gate is what these sessions exercise

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TeeDirEnv names the environment variable holding a directory: the server
// writes the bytes it read from stdin to stdin.bin there, and the bytes it wrote
// to stdout to stdout.bin.
const TeeDirEnv = "MCPSLEUTH_RECORDTEST_TEE"

// WithoutEnv names the environment variable holding tools (comma-separated)
// the server leaves out: the build of the server that dropped them.
const WithoutEnv = "MCPSLEUTH_RECORDTEST_WITHOUT"

// CrashCode is the status the crash tool exits with.
const CrashCode = 3

// StderrBanner is the line the server writes to stderr when it starts.
const StderrBanner = "recordtest server: starting (api_key=sk-recordtest0123456789abcdef)"

type echoArgs struct {
	Text string `json:"text"`
}

type askArgs struct {
	Prompt string `json:"prompt"`
}

type noArgs struct{}

// NewServer is the server: echo; ask-llm, which sends sampling/createMessage to
// the client whatever the client declared; and crash, which exits the process
// in the middle of the call.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "recordtest-server", Version: "0.1.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "ask-llm", Description: "Ask the client's model via sampling/createMessage"},
		func(ctx context.Context, req *mcp.CallToolRequest, in askArgs) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
				MaxTokens: 16,
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}},
			})
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "sampling failed: " + err.Error()}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{res.Content}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exit the server process"},
		func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "recordtest server: crashing on purpose")
			os.Exit(CrashCode)
			return nil, nil, nil
		})
	return s
}

// Main serves NewServer on stdin and stdout until the client closes stdin, and
// returns the exit code.
func Main() int {
	fmt.Fprintln(os.Stderr, StderrBanner)
	var in io.ReadCloser = os.Stdin
	var out io.WriteCloser = os.Stdout
	if dir := os.Getenv(TeeDirEnv); dir != "" {
		inCopy, err := os.Create(filepath.Join(dir, "stdin.bin"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer inCopy.Close()
		outCopy, err := os.Create(filepath.Join(dir, "stdout.bin"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer outCopy.Close()
		in = teeReadCloser{Reader: io.TeeReader(os.Stdin, inCopy), Closer: os.Stdin}
		out = teeWriteCloser{Writer: io.MultiWriter(outCopy, os.Stdout), Closer: os.Stdout}
	}
	s := NewServer()
	if without := os.Getenv(WithoutEnv); without != "" {
		s.RemoveTools(strings.Split(without, ",")...) // another build of the server, for replay's tests
	}
	err := s.Run(context.Background(), &mcp.IOTransport{Reader: in, Writer: out})
	if err != nil && err != io.EOF {
		fmt.Fprintln(os.Stderr, "recordtest server:", err)
	}
	return 0
}

type teeReadCloser struct {
	io.Reader
	io.Closer
}

type teeWriteCloser struct {
	io.Writer
	io.Closer
}
