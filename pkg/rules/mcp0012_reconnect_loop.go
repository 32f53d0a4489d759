package rules

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// The options of MCP0012: how many refused GETs within how long make a loop.
const (
	reconnectLimitOption = "reconnect-limit"
	reconnectSpanOption  = "reconnect-span"
	// DefaultReconnectLimit is more refusals than a client with a bounded
	// backoff asks for (the Go SDK client retries 5 times, the TypeScript SDK's
	// 2 by default).
	DefaultReconnectLimit = 10
	DefaultReconnectSpan  = time.Minute
)

// ReconnectLoop reports a client that keeps asking for the server's event stream
// (an HTTP GET) after the server refused it.
var ReconnectLoop = &rule.Rule{
	ID:       "MCP0012",
	Name:     "reconnect-loop",
	Severity: rule.SeverityWarning,
	Title:    "A Streamable HTTP client asked again and again for the server's event stream (GET) that the server refused, within a short time: a reconnect loop",
	Anchor:   "the GET that reached the limit",
	Hint:     "stop asking for the GET stream after 405 Method Not Allowed (the server offers none) and back off, with a bound, after other refusals; a client works without the GET stream",
	Doc: rule.Doc{
		Sees: "HTTP captures (a HAR, or a recording of mcpsleuth record --http) of Streamable HTTP sessions: the GETs a client sent for " +
			"the server's event stream that the server refused (405 Method Not Allowed, or any status of 400 or more), with their " +
			"times. When --reconnect-limit of them (default 10) fall within --reconnect-span (default 1m) in one session, the rule " +
			"reports the GET that reached the limit, once a session, naming the client, with how many GETs, how long they took and " +
			"the statuses they got. GETs the server answered with an event stream are not counted (a client that reconnects after a " +
			"stream ended, or polls one with Last-Event-ID as 2025-11-25 allows, is doing its job); a capture without times is not " +
			"judged.",
		Why: "A refused GET is cheap once and ruinous in a loop: a client that re-asks for the stream the moment it is refused floods " +
			"the server's logs and rate limits, keeps connections churning, and in browsers and proxies starves the connection pool " +
			"the POSTs need. 405 says the server offers no GET stream at all: asking again cannot succeed, and the client works " +
			"without it (responses travel on the POSTs' streams).",
		Fix: "Client: treat 405 on the GET as \"no stream here\" and do not ask again for the session; after other refusals, retry with " +
			"an exponential backoff and a bound, and honour the retry field the server sends on a stream. Server: if clients loop on " +
			"your 405, check that the 405 is deliberate; if it is, the fault is theirs.",
		Bad: `GET /mcp  Mcp-Session-Id: 1868...  ->  405 Method Not Allowed   12:00:00.010
GET /mcp  Mcp-Session-Id: 1868...  ->  405 Method Not Allowed   12:00:00.020
... 40 more within the second`,
		Good: `GET /mcp  Mcp-Session-Id: 1868...  ->  405 Method Not Allowed   (the client does not ask again)`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250326, Page: "basic/transports#listening-for-messages-from-the-server", Says: "The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed, indicating that the server does not offer an SSE stream at this endpoint."},
			{Revision: spec.Rev20251125, Page: "basic/transports#sending-messages-to-the-server", Says: "If the server does close the connection prior to terminating the SSE stream, it SHOULD send an SSE event with a standard retry field before closing the connection. The client MUST respect the retry field, waiting the given number of milliseconds before attempting to reconnect."},
		},
	},
	Options: []rule.Option{
		{Name: reconnectLimitOption, Usage: "report this many refused GETs for the event stream within --reconnect-span (MCP0012 reconnect-loop)", Default: DefaultReconnectLimit},
		{Name: reconnectSpanOption, Usage: "the window --reconnect-limit counts in (MCP0012 reconnect-loop)", Default: DefaultReconnectSpan},
	},
	New: func() rule.Checker { return &reconnectLoopChecker{} },
}

// reconnectLoopChecker keeps the times of the session's latest refused GETs.
type reconnectLoopChecker struct {
	exchanges exchangeJoin
	limit     int
	window    time.Duration
	refused   []refusal // the refused GETs within the window, oldest first
	reported  bool
}

// refusal is a refused GET: when it was sent, and its status.
type refusal struct {
	at     time.Time
	status int
}

func (c *reconnectLoopChecker) Message(p *rule.Pass, m *session.Message) {
	c.exchanges.message(m, func(h *frame.HTTP, side exchangeSide) { c.judge(p, h, side) })
}

func (c *reconnectLoopChecker) Exchange(p *rule.Pass, e *session.Exchange) {
	c.exchanges.exchange(e, func(h *frame.HTTP, side exchangeSide) { c.judge(p, h, side) })
}

func (c *reconnectLoopChecker) End(*rule.Pass) {}

func (c *reconnectLoopChecker) judge(p *rule.Pass, h *frame.HTTP, side exchangeSide) {
	if c.reported || !strings.EqualFold(h.Method, http.MethodGet) || h.Status < 400 || side.anchor.Time.IsZero() ||
		spec.WellKnownPath(h.Path) {
		return
	}
	if c.limit == 0 {
		c.limit = max(2, p.Option(reconnectLimitOption).(int))
		c.window = p.Option(reconnectSpanOption).(time.Duration)
	}
	at := side.anchor.Time
	c.refused = append(c.refused, refusal{at: at, status: h.Status})
	for at.Sub(c.refused[0].at) > c.window {
		c.refused = c.refused[1:]
	}
	if len(c.refused) < c.limit {
		return
	}
	c.reported = true
	statuses := map[int]int{}
	for _, r := range c.refused {
		statuses[r.status]++
	}
	p.Report(side.anchor, rule.Sprintf("the client asked for the server's event stream %d times in %s (GET %s, up to %s), and the "+
		"server refused each (%s): a reconnect loop; %s",
		len(c.refused), at.Sub(c.refused[0].at).Round(time.Millisecond), h.Path, h.Where(), rule.Text(statusSummary(statuses)),
		rule.Text(loopAdvice(statuses))).By(spec.Client))
}

// statusSummary lists the statuses counted, the most frequent first: "405 ×12, 503 ×2".
func statusSummary(statuses map[int]int) string {
	codes := make([]int, 0, len(statuses))
	for code := range statuses {
		codes = append(codes, code)
	}
	slices.SortFunc(codes, func(a, b int) int {
		if statuses[a] != statuses[b] {
			return statuses[b] - statuses[a]
		}
		return a - b
	})
	parts := make([]string, len(codes))
	for i, code := range codes {
		parts[i] = fmt.Sprintf("%d %s ×%d", code, http.StatusText(code), statuses[code])
	}
	return strings.Join(parts, ", ")
}

// loopAdvice says what the statuses tell the client.
func loopAdvice(statuses map[int]int) string {
	if statuses[http.StatusMethodNotAllowed] > 0 {
		return "405 Method Not Allowed says the server offers no GET stream, so asking again cannot succeed: a client stops asking and works without it"
	}
	return "a client retries a refused GET with a bounded exponential backoff, not at once"
}
