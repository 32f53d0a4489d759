package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// exchangeSide is the client's side of an HTTP exchange: where a finding points,
// and what the request carried.
type exchangeSide struct {
	anchor rule.Anchor
	what   string // the message the request carried ("tools/call id=2"); "" for none
	// discover is set when the message is a server/discover request; initialize
	// when it is an initialize request.
	discover, initialize bool
	// request is set when the body holds a request (alone or in a batch); carried
	// when it holds any message.
	request, carried bool
	// unassigned is set when the message lacks the Mcp-Session-Id the server
	// assigned the client's open session (MCP0010's case); ended when it was
	// sent on a session that had ended (MCP0007's: a DELETE, or a 404 for
	// another exchange).
	unassigned, ended bool
}

// sessionEnded reports whether a message of exchange h was sent on a session
// that had ended before it: deleted, or gone (answered 404 for another
// exchange).
func sessionEnded(s *session.Session, h *frame.HTTP) bool {
	return s.AfterDelete != nil || (s.Gone != nil && h.Exchange != s.Gone.HTTP.Exchange)
}

// clientSide describes the client's message m as the side of its exchange.
func clientSide(m *session.Message) exchangeSide {
	side := exchangeSide{anchor: rule.At(m), what: rule.Describe(m), carried: true,
		request:    m.Kind == frame.KindRequest,
		discover:   m.Kind == frame.KindRequest && m.Method == "server/discover",
		initialize: m.Kind == frame.KindRequest && m.Method == "initialize",
		unassigned: m.Session.Unassigned != nil && m.HTTP.SessionID == "",
		ended:      sessionEnded(m.Session, m.HTTP)}
	if m.Kind == frame.KindInvalid {
		side.what = "a body that is not a JSON-RPC message"
	}
	if m.Kind == frame.KindBatch {
		for _, member := range m.Members {
			if member.Kind == frame.KindRequest {
				side.request = true
			}
		}
	}
	return side
}

// exchangeJoin pairs the client's side of each HTTP exchange with its status, and
// judges each exchange once: a HAR entry has the status with the request; a
// recording writes the client's message (or its bodiless request) first and the
// status in a later record of the exchange, so the client's side waits in pending
// until then.
type exchangeJoin struct {
	pending map[int]exchangeSide
	order   []int // pending's exchanges in the order they came, to drop the oldest
	// judged holds the exchanges already judged (a HAR entry's request, then its
	// response frames; a response's SSE events).
	judged      map[int]bool
	judgedOrder []int
}

// maxPendingExchanges bounds the exchanges waiting for their status, and those
// remembered as judged.
const maxPendingExchanges = 1024

// judgeFunc judges an exchange whose status is known, with its client's side.
type judgeFunc func(*frame.HTTP, exchangeSide)

// message takes one message of the session: a client's message is its exchange's
// client side, a message in a response the record of its status. A batch is
// taken as a whole, not member by member.
func (x *exchangeJoin) message(m *session.Message, judge judgeFunc) {
	h := m.HTTP
	if h == nil || m.Batch != nil {
		return
	}
	if !h.InResponse {
		x.client(h, clientSide(m), judge)
		return
	}
	x.answered(h, exchangeSide{anchor: rule.At(m)}, judge)
}

// exchange takes an exchange that carried no message, or the record of a
// recording's exchange that holds its status.
func (x *exchangeJoin) exchange(e *session.Exchange, judge judgeFunc) {
	side := exchangeSide{anchor: rule.AtExchange(e), ended: e.Session != nil && sessionEnded(e.Session, e.HTTP)}
	if e.InResponse {
		x.answered(e.HTTP, side, judge)
		return
	}
	x.client(e.HTTP, side, judge)
}

// client takes the client's side of an exchange: judged now when the status is
// known (a HAR), else kept until a record of the exchange brings it.
func (x *exchangeJoin) client(h *frame.HTTP, side exchangeSide, judge judgeFunc) {
	if h.Status != 0 || h.Exchange == 0 {
		x.judge(h, side, judge)
		return
	}
	if x.pending == nil {
		x.pending = map[int]exchangeSide{}
	}
	if _, ok := x.pending[h.Exchange]; !ok {
		x.order = append(x.order, h.Exchange)
	}
	x.pending[h.Exchange] = side
	if len(x.order) > maxPendingExchanges {
		delete(x.pending, x.order[0])
		x.order = x.order[1:]
	}
}

// answered takes a record of the server's side: the status of the exchange whose
// client side is pending, or of one whose request carried nothing that was
// recorded apart (a HAR's GET answered with frames), anchored at side then.
func (x *exchangeJoin) answered(h *frame.HTTP, side exchangeSide, judge judgeFunc) {
	if h.Status == 0 {
		return
	}
	if waiting, ok := x.pending[h.Exchange]; ok {
		delete(x.pending, h.Exchange)
		x.judge(h, waiting, judge)
		return
	}
	if !x.judged[h.Exchange] {
		x.judge(h, side, judge)
	}
}

func (x *exchangeJoin) judge(h *frame.HTTP, side exchangeSide, judge judgeFunc) {
	if h.Exchange > 0 {
		if x.judged == nil {
			x.judged = map[int]bool{}
		}
		if !x.judged[h.Exchange] {
			x.judged[h.Exchange] = true
			x.judgedOrder = append(x.judgedOrder, h.Exchange)
		}
		if len(x.judgedOrder) > maxPendingExchanges {
			delete(x.judged, x.judgedOrder[0])
			x.judgedOrder = x.judgedOrder[1:]
		}
	}
	judge(h, side)
}
