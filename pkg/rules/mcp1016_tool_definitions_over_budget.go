package rules

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/tokens"
)

// The option of MCP1016: the tokens a server's tool definitions may take.
const (
	toolsBudgetOption = "tools-budget"
	// DefaultToolsBudget is about a tenth of a 200k-token context window: a
	// server whose definitions take more crowds out the conversation with every
	// other server connected beside it.
	DefaultToolsBudget = 20000
)

// ToolDefinitionsOverBudget reports a tools/list result whose definitions together
// take more tokens than the budget: context the model pays on every turn.
var ToolDefinitionsOverBudget = &rule.Rule{
	ID:       "MCP1016",
	Name:     "tool-definitions-over-budget",
	Severity: rule.SeverityInfo,
	Title:    "A tools/list result's definitions take more tokens than --tools-budget, paid on every turn",
	Anchor:   "the tools/list result",
	Hint:     "trim what each tool's definition says to what the model needs to choose and call it: shorter descriptions, no examples repeated in every schema, fewer tools (or tools the client loads on demand)",
	Doc: rule.Doc{
		Sees: fmt.Sprintf("Each tools/list result, by the tokens of its tool definitions as the model receives them: each tool's JSON "+
			"(name, title, description, inputSchema, outputSchema, annotations; compacted) counted with OpenAI's o200k_base tokenizer, offline "+
			"(a model's own tokenizer may count a few percent otherwise). Over --tools-budget (default %d tokens) the result is reported, once per "+
			"distinct list in a session, with its total and the three largest definitions. A paginated list is judged page by page. Info level: "+
			"the specification sets no limit.", DefaultToolsBudget),
		Why: "Clients put every tool definition of every connected server into the model's context, on every turn of the conversation, whether " +
			"or not the tools are used: definitions that take tens of thousands of tokens crowd out the user's own context, cost on every " +
			"request, and make the model choose worse among too many tools.",
		Fix: "Keep each description to what the model needs to choose the tool and call it right; move long guidance to a prompt or a " +
			"resource the model reads when it needs it; drop examples and enumerations repeated across schemas; split a server with many " +
			"tools into servers a user enables as needed.",
		Bad:  `{"jsonrpc":"2.0","id":2,"result":{"tools":[ ... 80 tools, each with a 2,000-character description ... ]}}`,
		Good: `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"search","description":"Search issues by text; returns ids.","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}, ...]}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "server/tools#listing-tools", Says: "To discover available tools, clients send a tools/list request; the result lists each tool's name, description, inputSchema and optional outputSchema and annotations. No size limit is set."},
		},
	},
	Options: []rule.Option{
		{Name: toolsBudgetOption, Usage: "report a tools/list whose definitions take more tokens than this (MCP1016 tool-definitions-over-budget)", Default: DefaultToolsBudget},
	},
	Kinds:  rule.KindsOf(frame.KindResult),
	Shared: func() any { return tokens.NewMemo() },
	New:    func() rule.Checker { return &toolBudgetWatch{} },
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"tools/list"},
}

type toolBudgetWatch struct {
	seen map[uint64]bool // lists already reported in the session, by their total and names
}

func (w *toolBudgetWatch) End(*rule.Pass) {}

// toolCost is one definition's share of a list.
type toolCost struct {
	name   string
	tokens int
}

func (w *toolBudgetWatch) Message(p *rule.Pass, m *session.Message) {
	if m.Kind != frame.KindResult || m.Request == nil || m.Request.Method != "tools/list" {
		return
	}
	list, ok := m.ResultNode().Get("tools")
	if !ok || !list.IsArray() {
		return
	}
	budget := p.Option(toolsBudgetOption).(int)
	if len(list.Raw()) <= budget {
		return // a token is at least a byte: a list this short cannot be over
	}
	memo := p.Shared().(*tokens.Memo)
	var costs []toolCost
	total := 0
	list.Elements(func(_ int, tool frame.Node) bool {
		n := memo.OfJSON(tool.Raw())
		name, _ := get(tool, "name").Str()
		costs = append(costs, toolCost{name: strings.Clone(name), tokens: n})
		total += n
		return true
	})
	if total <= budget {
		return
	}
	h := fnv.New64a()
	fmt.Fprint(h, total)
	for _, c := range costs {
		h.Write([]byte(c.name))
	}
	sum := h.Sum64()
	if w.seen[sum] {
		return
	}
	if w.seen == nil {
		w.seen = map[uint64]bool{}
	}
	w.seen[sum] = true
	slices.SortStableFunc(costs, func(a, b toolCost) int { return b.tokens - a.tokens })
	top := costs[:min(3, len(costs))]
	parts := make([]string, len(top))
	args := []any{m.Line, len(costs), total, budget}
	for i, c := range top {
		parts[i] = "%s (%d)"
		args = append(args, rule.Quote(rule.ValueName, c.name), c.tokens)
	}
	p.Report(rule.At(m), rule.Sprintf("the tools/list result (line %d) carries %d tool definitions of %d tokens together (o200k_base), over the %d-token budget: "+
		"clients put them in the model's context on every turn; the largest: "+strings.Join(parts, ", "), args...).By(spec.Server))
}
