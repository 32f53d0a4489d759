package rules

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// LogDataSpread reports a log message whose data is a string spread into an
// object of one-character members, as JavaScript's {...text} makes it.
var LogDataSpread = &rule.Rule{
	ID:       "MCP3011",
	Name:     "log-data-spread",
	Severity: rule.SeverityWarning,
	Title:    "A log message's data is a string spread into an object of one-character members",
	Anchor:   "the first notifications/message of the session so sent",
	Hint:     "send the text itself as data (data: text), or an object with named members (data: {message: text}); never spread a string into an object",
	Doc: rule.Doc{
		Sees: "Each notifications/message the server sent (or whose sender the log does not show), by its params.data: an object of at " +
			"least two members whose names are \"0\", \"1\", \"2\"... in order and whose values are strings of one character each. That is " +
			"exactly what JavaScript's object spread makes of a string ({...text}, Object.assign({}, text)), and no logger writes it on " +
			"purpose. Reported once a session, at the first such message, with the text put back together. The level of a message is " +
			"not judged: whether a routine event deserved \"error\" is a guess.",
		Why: "The log reaches the client as an object of hundreds of members: clients that show log messages (the Inspector, VS Code's " +
			"output channel, Claude Code's MCP log) print {\"0\":\"f\",\"1\":\"e\",...} instead of the text, and a log pipeline indexes a " +
			"field per character. The server's diagnostics become unreadable exactly when someone needs them, and the message is many " +
			"times its text's size on the wire.",
		Fix: "Find the call that spreads a string into the log's data (Desktop Commander wraps its message as {...message, ...}) and pass " +
			"the string as data, or an object whose members have names (data: {message: text, tool: name}).",
		Bad:  `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"0":"r","1":"e","2":"a","3":"d","4":"y"}}}`,
		Good: `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"ready"}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "server/utilities/logging#log-message-notifications", Says: "Servers send log messages using notifications/message notifications (level, an optional logger, data); schema.json: data is \"The data to be logged, such as a string message or an object. Any JSON serializable type is allowed here.\""},
		},
	},
	Kinds: rule.KindsOf(frame.KindNotification),
	New:   func() rule.Checker { return &spreadLogWatch{} },
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"notifications/message"},
}

type spreadLogWatch struct{ reported bool }

func (w *spreadLogWatch) End(*rule.Pass) {}

func (w *spreadLogWatch) Message(p *rule.Pass, m *session.Message) {
	if w.reported || m.Method != "notifications/message" || m.Dir == spec.C2S {
		return
	}
	data := get(m.ParamsNode(), "data")
	if !data.IsObject() {
		return
	}
	text, n, ok := spreadString(data)
	if !ok {
		return
	}
	w.reported = true
	p.Report(rule.At(m), rule.Sprintf("the server's log message carries the string %s spread into an object of %d one-character members "+
		"({\"0\":..., \"1\":...}): clients show the object, not the text; send the string itself as data",
		rule.Quote(rule.ValueData, text), n).By(spec.Server))
}

// maxSpreadKept bounds the bytes of a spread string put back together (the
// message clips it further).
const maxSpreadKept = 1 << 10

// spreadString reads back the string an object of members "0".."n-1", each a
// one-character string, was spread from (at most maxSpreadKept bytes of it). ok
// is false for any other object, and for fewer than two members.
func spreadString(obj frame.Node) (text string, n int, ok bool) {
	var b strings.Builder
	ok = true
	obj.Members(func(name string, v frame.Node) bool {
		s, isString := v.Str()
		if name != strconv.Itoa(n) || !isString || utf8.RuneCountInString(s) != 1 {
			ok = false
			return false
		}
		if b.Len() < maxSpreadKept {
			b.WriteString(s)
		}
		n++
		return true
	})
	return b.String(), n, ok && n >= 2
}
