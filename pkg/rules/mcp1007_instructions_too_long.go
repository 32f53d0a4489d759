package rules

import (
	"fmt"
	"hash/fnv"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/tokens"
)

// InstructionsBudgetOption is MCP1007's option: the tokens instructions may take.
// InstructionsBudgetOption is MCP1007's option: the budget in tokens.
const InstructionsBudgetOption = "instructions-budget"

// InstructionsTooLong reports server instructions large enough to cost on every turn.
var InstructionsTooLong = &rule.Rule{
	ID:       "MCP1007",
	Name:     "instructions-too-long",
	Severity: rule.SeverityInfo,
	Title:    "Server instructions over --instructions-budget tokens (300), paid on every turn",
	Anchor:   "the initialize or server/discover result",
	Hint:     "keep instructions to a few sentences about how the server's features fit together; move per-tool detail into tool descriptions, which clients load only when relevant",
	Doc: rule.Doc{
		Sees: fmt.Sprintf("The instructions string of an initialize result (legacy) or a server/discover result (2026-07-28). Its size is counted "+
			"in tokens with OpenAI's o200k_base tokenizer, offline (the count `mcpsleuth handshake` prints; a model's own tokenizer may count a few "+
			"percent otherwise); over --instructions-budget tokens (default %d) it is reported once per distinct text "+
			"in a session. Info level: the specification sets no limit, so a long text breaks no contract.", session.InstructionsTokenBudget),
		Why: "Clients typically place the server's instructions in the model's context (often the system prompt) for the whole conversation, " +
			"so every byte is paid on every turn, for every user, whether or not the server is used in that turn. Long instructions crowd out " +
			"the user's own context, and with several servers connected they add up.",
		Fix: "Cut the instructions to what the model needs to use the server well: how tools relate, in what order to call them, and constraints " +
			"that span tools. Move per-tool explanations into each tool's description and examples into the input schema's descriptions; drop " +
			"marketing text and changelogs.",
		Bad: `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"},
  "instructions":"# Server guide\n\n(2,000 bytes: every tool described again, examples, troubleshooting...)"}}`,
		Good: `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"},
  "instructions":"Call search before fetch; fetch only ids that search returned."}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "schema#initializeresult", Says: "InitializeResult.instructions: instructions describing how to use the server and its features; \"this information MAY be added to the system prompt\". No size limit is set."},
			{Revision: spec.Rev20260728, Page: "schema#discoverresult", Says: "DiscoverResult.instructions: guidance that \"should focus on information that helps the model use the server effectively and should not duplicate information already in tool descriptions\"."},
		},
	},
	Options: []rule.Option{
		{Name: InstructionsBudgetOption, Usage: "report server instructions of more tokens than this (MCP1007 instructions-too-long)", Default: session.InstructionsTokenBudget},
	},
	Kinds: rule.KindsOf(frame.KindResult),
	New:   func() rule.Checker { return &instructionsWatch{} },
}

// maxInstructionTexts bounds the distinct instruction texts remembered per session.
const maxInstructionTexts = 64

type instructionsWatch struct {
	seen map[uint64]bool // hashes of instruction texts already reported
}

func (w *instructionsWatch) Message(p *rule.Pass, m *session.Message) {
	if m.Kind != frame.KindResult || m.Request == nil {
		return
	}
	var text, what string
	switch m.Request.Method {
	case "initialize":
		if c := m.Contract; c != nil && c.ResultLine == m.Line {
			text, what = c.Instructions, "initialize result"
		}
	case "server/discover":
		if d := m.Session.Discover; d != nil && d.ServerCapsLine == m.Line {
			text, what = d.Instructions, "server/discover result"
		}
	}
	budget := p.Option(InstructionsBudgetOption).(int)
	if len(text) <= budget {
		return // a token is at least a byte: a text this short cannot be over
	}
	tokens := tokens.Of(text)
	if tokens <= budget {
		return
	}
	h := fnv.New64a()
	h.Write([]byte(text))
	sum := h.Sum64()
	if w.seen[sum] {
		return
	}
	if len(w.seen) < maxInstructionTexts {
		if w.seen == nil {
			w.seen = map[uint64]bool{} // made on first use: most sessions never need it
		}
		w.seen[sum] = true
	}
	p.Report(rule.At(m), rule.Sprintf("the %s carries instructions of %d bytes, %d tokens (o200k_base), over the %d-token budget: clients put them in the model's context on every turn; starts %s",
		what, len(text), tokens, budget, rule.Quote(rule.ValueInstructions, text)))
}

func (w *instructionsWatch) End(*rule.Pass) {}
