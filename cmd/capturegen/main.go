// Command capturegen writes a large synthetic capture for benchmarks and memory
// measurements: sessions of one profile, one after another, until the requested size.
// It is a development tool (task bench, cmd/benchtable), not part of mcpsleuth.
//
//	go run ./cmd/capturegen -size 1G -o /tmp/big.jsonl
//	go run ./cmd/capturegen -profile payload-heavy -size 1G -o /tmp/payload.jsonl
//	go run ./cmd/capturegen -list
//
// Flags:
//
//	-profile NAME  what to write (default healthy; -list names them all):
//	    healthy        envelope JSONL ({"ts","dir":"c->s"|"s->c","msg"}) of healthy
//	                   2025-06-18 sessions of 2,000 exchanges with small payloads
//	    payload-heavy  envelope JSONL (dir c2s/s2c) of sessions of 2025-03-26, 2025-06-18
//	                   and 2025-11-25 in turn, with what support archives hold: tool
//	                   results of 100 B to 200 KB of escaped text, structuredContent
//	                   (2025-06-18 on), base64 blobs of 1-256 KB, one result of about
//	                   5 MB in every 100 MB, sampling and roots requests of the server,
//	                   progress, cancellations and JSON-RPC errors
//	    base64         envelope JSONL of 2025-06-18 sessions whose resources/read blobs
//	                   and tools/call image contents are 64 KB to 4 MB of base64 each
//	    tiny-sessions  envelope JSONL of many sessions of 20 frames each (about 200,000
//	                   sessions a GiB), the three revisions in turn
//	    har            one HAR 1.2 document of Streamable HTTP sessions (2025-06-18 and
//	                   2025-11-25 in turn): a POST to /mcp per message, JSON and SSE
//	                   responses, Mcp-Session-Id and MCP-Protocol-Version headers,
//	                   202 for notifications, a DELETE at the end of each session
//	    bare           the healthy sessions as bare JSON-RPC lines
//	    gosdk-log      the healthy sessions as the Go SDK LoggingTransport of the
//	                   server writes them ("read: {...}" / "write: {...}")
//	-size SIZE     approximate output size, with a K, M or G suffix (default 100M):
//	               writing stops at the end of the session that reaches it
//	               (payload-heavy and base64: at the end of the exchange)
//	-o FILE        output file ('-' = stdout, the default)
//	-bare          the same as -profile bare (kept from before profiles existed)
//	-list          print the profiles, with the file extension each is written with
//
// Every profile is deterministic (fixed seeds: the same flags give the same bytes)
// and written as a stream through one large buffer: no profile holds more than one
// message (the largest, about 5 MB) and its fixed pools of text and base64 in memory.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// A profile is one kind of capture; each lives in its own file.
type profile struct {
	name  string
	ext   string // the file extension the format is known by (cmd/benchtable uses the same)
	write func(o *output, limit int64)
}

var profiles = []profile{
	{"healthy", ".jsonl", writeHealthy},
	{"payload-heavy", ".jsonl", writePayloadHeavy},
	{"base64", ".jsonl", writeBase64},
	{"tiny-sessions", ".jsonl", writeTinySessions},
	{"har", ".har", writeHAR},
	{"bare", ".jsonl", writeBare},
	{"gosdk-log", ".log", writeGoSDKLog},
}

func main() {
	name := flag.String("profile", "healthy", "what to write: "+profileNames())
	size := flag.String("size", "100M", "approximate output size (K, M, G suffixes)")
	out := flag.String("o", "-", "output file ('-' = stdout)")
	bare := flag.Bool("bare", false, "the same as -profile bare")
	list := flag.Bool("list", false, "print the profiles and the file extension of each")
	flag.Parse()
	if *list {
		for _, p := range profiles {
			fmt.Printf("%s\t%s\n", p.name, p.ext)
		}
		return
	}
	if *bare {
		if explicit("profile") && *name != "bare" {
			fail(fmt.Errorf("-bare and -profile %s disagree", *name))
		}
		*name = "bare"
	}
	p, ok := lookup(*name)
	if !ok {
		fail(fmt.Errorf("unknown -profile %q (one of %s)", *name, profileNames()))
	}
	limit, err := parseSize(*size)
	if err != nil {
		fail(err)
	}
	var w io.Writer = os.Stdout
	var f *os.File
	if *out != "-" {
		if f, err = os.Create(*out); err != nil {
			fail(err)
		}
		w = f
	}
	o := &output{w: bufio.NewWriterSize(w, 4<<20)}
	p.write(o, limit)
	if err := o.w.Flush(); err != nil {
		fail(err)
	}
	if f != nil {
		if err := f.Close(); err != nil {
			fail(err)
		}
	}
}

func lookup(name string) (profile, bool) {
	for _, p := range profiles {
		if p.name == name {
			return p, true
		}
	}
	return profile{}, false
}

func profileNames() string {
	var names []string
	for _, p := range profiles {
		names = append(names, p.name)
	}
	return strings.Join(names, ", ")
}

// explicit reports whether a flag was given on the command line.
func explicit(name string) bool {
	found := false
	flag.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "capturegen: %v\n", err)
	os.Exit(2)
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad -size %q", s)
	}
	return n * mult, nil
}
