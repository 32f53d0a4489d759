package rules_test

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	mgmcp "github.com/mark3labs/mcp-go/mcp"
	mgserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

var writeEventIDFixtures = flag.String("write-event-id-fixtures", "", "also write the HARs TestEventIDsNumberedPerStream records into this directory")

// perStreamEventStore is an mcp-go EventStore written as a store keyed by stream
// would be: each stream numbers its events from 1. mcp-go's EventStore contract
// asks for ids "unique within a session across all of its streams", and the
// transport sends the store's ids as they are, so every POST stream of a session
// repeats the ids of the first.
type perStreamEventStore struct {
	mu      sync.Mutex
	streams map[string][]json.RawMessage // by stream id
	order   []string                     // streams in order of their first event
}

func (s *perStreamEventStore) StoreEvent(_ context.Context, _, streamID string, message json.RawMessage) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streams == nil {
		s.streams = map[string][]json.RawMessage{}
	}
	if _, ok := s.streams[streamID]; !ok {
		s.order = append(s.order, streamID)
	}
	s.streams[streamID] = append(s.streams[streamID], message)
	return strconv.Itoa(len(s.streams[streamID])), nil
}

// ReplayEventsAfter replays from the first stream that holds the id, as such a
// store can only do: an id names an event of every stream that got that far.
func (s *perStreamEventStore) ReplayEventsAfter(_ context.Context, _, lastEventID string, send func(string, json.RawMessage) error) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := strconv.Atoi(lastEventID)
	if err != nil {
		return "", mgserver.ErrUnknownEventID
	}
	for _, id := range s.order {
		events := s.streams[id]
		if n < 1 || n > len(events) {
			continue
		}
		for i := n; i < len(events); i++ {
			if err := send(strconv.Itoa(i+1), events[i]); err != nil {
				return "", err
			}
		}
		return id, nil
	}
	return "", mgserver.ErrUnknownEventID
}

func (s *perStreamEventStore) PurgeSession(context.Context, string) error { return nil }

// eventStoreSession records the Go SDK client (v1.8.0) calling twice a tool of
// mcp-go's Streamable HTTP server (v1.2.1) that logs before it answers, so that
// each call's POST is answered with an event stream of its own, the server
// storing its events in store; as a HAR and through record --http.
func eventStoreSession(t *testing.T, store mgserver.EventStore) (harPath, recPath string, har *harRecorder) {
	t.Helper()
	srv := mgserver.NewMCPServer("mcp-go-resumable", "0.1.0", mgserver.WithToolCapabilities(false), mgserver.WithLogging())
	srv.AddTool(mgmcp.NewTool("work", mgmcp.WithString("job")), func(ctx context.Context, req mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
		err := mgserver.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": "working on " + req.GetString("job", "")})
		if err != nil {
			return nil, err
		}
		return mgmcp.NewToolResultText("done"), nil
	})
	har = &harRecorder{}
	upstream := httptest.NewServer(har.wrap(mgserver.NewStreamableHTTPServer(srv, mgserver.WithEventStore(store))))
	proxy, rec, recPath := recordingProxy(t, upstream.URL)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-client", Version: "0.1.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: proxy.URL + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	for _, job := range []string{"first", "second"} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "work", Arguments: map[string]any{"job": job}}); err != nil {
			t.Fatalf("tools/call %s: %v", job, err)
		}
	}
	cs.Close()
	finishCaptures(t, har, proxy, upstream, rec)
	harPath = filepath.Join(t.TempDir(), "event-ids.har")
	har.write(t, harPath)
	return harPath, recPath, har
}

// TestEventIDsNumberedPerStream records an mcp-go server whose event store
// numbers each stream's events from 1 (perStreamEventStore): the second call's
// stream sends the ids of the first's again, which the transport pages of
// 2025-03-26 and later forbid ("globally unique across all streams within that
// session"). MCP0013 names the server at the second stream's first event, the
// same in the HAR and in the recording. Its twin, mcp-go's own
// InMemoryEventStore (one sequence a server), is silent.
func TestEventIDsNumberedPerStream(t *testing.T) {
	harPath, recPath, har := eventStoreSession(t, &perStreamEventStore{})
	if *writeEventIDFixtures != "" {
		har.write(t, filepath.Join(*writeEventIDFixtures, "mcp-go-event-ids-per-stream.har"))
	}
	want := regexp.MustCompile(`^the server sent event id 1 again \(notifications/message, on POST /mcp \((entry|exchange) \d+\)\), after an event with that id on POST /mcp \((entry|exchange) \d+\): event ids must be unique across all the streams of a session, or a client that resumes from one gets the wrong stream replayed \(at fault: the server\)$`)
	var messages []string
	for _, path := range []string{harPath, recPath} {
		got := ruleFindings(t, path, "MCP0013")
		if len(got) != 1 || !want.MatchString(got[0].Message) || got[0].Party != spec.Server {
			t.Fatalf("%s: MCP0013 findings %+v, want one matching %s", filepath.Base(path), got, want)
		}
		messages = append(messages, regexp.MustCompile(`\((entry|exchange) \d+\)`).ReplaceAllString(got[0].Message, ""))
	}
	if messages[0] != messages[1] {
		t.Errorf("the HAR and the recording disagree:\nHAR       %s\nrecording %s", messages[0], messages[1])
	}

	harPath, recPath, har = eventStoreSession(t, mgserver.NewInMemoryEventStore())
	if *writeEventIDFixtures != "" {
		har.write(t, filepath.Join(*writeEventIDFixtures, "mcp-go-event-ids-unique.har"))
	}
	for _, path := range []string{harPath, recPath} {
		if got := ruleFindings(t, path, "MCP0013", "MCP0011", "MCP3001"); len(got) != 0 {
			t.Errorf("%s (InMemoryEventStore): %+v", filepath.Base(path), got)
		}
	}
	if !harHasEventIDs(har) {
		t.Fatal("mcp-go's InMemoryEventStore session carries no SSE event id: the twin tests nothing")
	}
}

// harHasEventIDs reports whether a response of the HAR is an event stream with
// an id field.
func harHasEventIDs(h *harRecorder) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range h.entries {
		content, _ := e["response"].(map[string]any)["content"].(map[string]any)
		if text, _ := content["text"].(string); regexp.MustCompile(`(?m)^id: ?\S`).MatchString(text) {
			return true
		}
	}
	return false
}

var _ http.Handler = (*mgserver.StreamableHTTPServer)(nil)
