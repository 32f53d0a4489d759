package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// maxPasted bounds the pasted-documents form of handshake input.
const maxPasted = 16 << 20

func handshakeCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "handshake",
		Usage: "the negotiated contract: revision verdict, both capability sets, who may send what, promises made, what the revision lacks, instructions cost",
		Description: "Reads a capture, or just the initialize request and result pasted as two JSON documents\n" +
			"(pretty-printed or not; the bare params and result objects are accepted too).",
		ArgsUsage: "[FILE|-]",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout"},
			&cli.StringFlag{Name: "color", Value: "auto", Usage: "auto, always or never"},
		}, readFlags()...),
		Action: func(_ context.Context, c *cli.Command) error { return runHandshake(env, c) },
	}
}

func runHandshake(env Env, c *cli.Command) error {
	out, err := parseOutput(env, c, "text", "json")
	if err != nil {
		return err
	}
	fopt, err := frameOptions(c)
	if err != nil {
		return err
	}
	name, in, err := openSingle(env, c, "handshake")
	if err != nil {
		return err
	}
	defer in.Close()
	if err := out.notAnInput([]string{name}); err != nil {
		return err
	}
	br := bufio.NewReaderSize(in, 1<<20)
	var src io.Reader = br
	if pasted, ok := pastedDocuments(br); ok {
		src, fopt.Format = bytes.NewReader(pasted), "jsonrpc-jsonl"
	}
	// Each session's handshake is spooled as the session ends (nothing of it is
	// kept), and written in session order at the end.
	newStream := report.NewHandshakeTextStream
	if out.format == "json" {
		newStream = report.NewHandshakeJSONStream
	}
	spool, err := newSpool()
	if err != nil {
		return err
	}
	defer spool.Close()
	stream := newStream(spool, report.StreamOptions{Text: report.TextOptions{Color: out.colour, Width: out.width}})
	tracer := trace.Require(report.HandshakeRequires)
	var found int
	var streamErr error
	perspective := newPerspectiveCheck(fopt)
	contradicted := ""
	ropt := driver.RunOptions{Frame: fopt, Discard: true, OnSession: func(sr *rule.SessionResult) {
		if text := perspective.contradicted(sr); text != "" && contradicted == "" {
			contradicted = text
		}
		t := tracer.Of(sr)
		if t != nil && t.Handshake != nil {
			found++
		}
		if err := stream.Session(sr, t); err != nil && streamErr == nil {
			streamErr = err
		}
	}}
	tracer.Apply(&ropt)
	perspective.apply(&ropt)
	res, err := driver.Run(name, src, nil, ropt)
	if err != nil {
		return &exitError{code: ExitUsage, msg: err.Error()}
	}
	if streamErr == nil {
		streamErr = spool.Flush()
	}
	switch {
	case streamErr != nil:
		return &exitError{code: ExitUsage, msg: streamErr.Error()}
	case found == 0 && contradicted != "":
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("mcpsleuth: %s: %s", report.Safe(name), contradicted)}
	case found == 0 && res.Broken != nil:
		return &exitError{code: ExitUsage, msg: res.Broken.Error()}
	case found == 0:
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("mcpsleuth: %s: no initialize exchange and no modern request found: nothing to negotiate", name)}
	}
	if err := out.write(env, func(w io.Writer) error { return stream.Finish(w, spool.file) }); err != nil {
		return err
	}
	if res.Broken != nil { // a read error after the handshakes: they are shown, the run is not clean
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("%v (the handshake covers what was read before)", res.Broken)}
	}
	return nil
}

// pastedDocuments recognises the pasted form that only handshake takes (bare
// initialize params/result objects, or messages without their "jsonrpc" member) and
// rewrites it as JSON-RPC lines. JSON-RPC messages and envelope records, compact or
// pretty-printed (documents that span lines: the pretty-json format), are left to the
// reader, which reads them as check does.
func pastedDocuments(br *bufio.Reader) ([]byte, bool) {
	head, _ := br.Peek(1 << 20)
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, false
	}
	first, err := firstDocument(trimmed)
	if err != nil {
		return nil, false
	}
	multiLine := bytes.ContainsRune(first, '\n')
	var probe map[string]json.RawMessage
	_ = json.Unmarshal(first, &probe)
	_, isRPC := probe["jsonrpc"]
	_, bareParams := probe["protocolVersion"]
	if _, rewritable := asJSONRPC(probe); isRPC || !rewritable {
		return nil, false // a message or an envelope record, one a line or pretty-printed
	}
	if !multiLine && !bareParams {
		return nil, false // a capture: one message per line
	}
	if _, ok := asJSONRPC(probe); !ok {
		return nil, false // a document that holds a capture (HAR): read as one
	}
	dec := json.NewDecoder(io.LimitReader(br, maxPasted))
	var out bytes.Buffer
	for {
		var doc map[string]json.RawMessage
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, false
		}
		line, ok := asJSONRPC(doc)
		if !ok {
			continue
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	return out.Bytes(), out.Len() > 0
}

func firstDocument(b []byte) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(new(json.RawMessage)); err != nil {
		return nil, err
	}
	return b[:dec.InputOffset()], nil
}

// asJSONRPC turns a pasted document into one compact JSON-RPC line: a full message
// stays as it is; bare initialize params (clientInfo) or results (serverInfo) are wrapped.
func asJSONRPC(doc map[string]json.RawMessage) ([]byte, bool) {
	var msg any = doc
	switch {
	case doc["jsonrpc"] != nil:
	case doc["method"] != nil || doc["result"] != nil || doc["error"] != nil:
		doc["jsonrpc"] = json.RawMessage(`"2.0"`)
	case doc["clientInfo"] != nil:
		msg = map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": doc}
	case doc["serverInfo"] != nil || doc["capabilities"] != nil:
		msg = map[string]any{"jsonrpc": "2.0", "id": 0, "result": doc}
	default:
		return nil, false
	}
	line, err := json.Marshal(msg)
	return line, err == nil
}
