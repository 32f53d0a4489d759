package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Lists reads the items of every list result once, where spec.ListResults says
// they are (the result's member that holds them, the item's member that names
// them): the one reading of a tools, prompts, resources, resource templates or
// roots listing for MCP2005, MCP4002, MCP4005, PublishedTools, the trace's kept
// lists and validate-args, which each walked the result themselves before.
var Lists = &rule.Analysis{
	Name:  "lists",
	Apart: true, // a session's own state
	New: func(*session.Session, rule.Results) rule.Computation {
		return &ListLog{}
	},
}

// ListLog is the result of Lists for one session: the listing of the message
// being visited.
type ListLog struct {
	m       *session.Message
	listing Listing
}

// Listing is the items of one list result.
type Listing struct {
	// List is the spec's row of the list request the result answers.
	List spec.ListResult
	// Items are the values of the result's List.Member, in order: an array's
	// elements, or an object's member values (recorders and proxies that turn
	// the list into a map), or any other value once (a list that is one string:
	// an item with no name). No member: no items.
	Items []ListItem
}

// ListItem is one item of a listing.
type ListItem struct {
	// Name is the text of the item's first List.Key member: a string
	// unescaped, any other value its JSON text (a number as written, or read
	// as a float when it has a fraction or an exponent), "" when there is none.
	// It aliases the frame: whoever keeps it clones it.
	Name string
	// Named says the Key member is a string, as the schemas require of a name.
	Named bool
	// Value is the item as the frame holds it.
	Value frame.Node
}

func (l *ListLog) Result() any { return l }

func (l *ListLog) Message(m *session.Message) {
	l.m = nil
	if m.Kind != frame.KindResult || m.Request == nil {
		return
	}
	list, ok := spec.ListResultOf(m.Request.Method)
	if !ok {
		return
	}
	l.m = m
	l.listing.List = list
	l.listing.Items = readItems(list, m.ResultNode(), l.listing.Items[:0])
}

// Of returns the listing that m carries, when m is a list result and the
// message being visited; nil otherwise. It is valid while m is visited.
func (l *ListLog) Of(m *session.Message) *Listing {
	if m == nil || l.m != m {
		return nil
	}
	return &l.listing
}

// readItems appends the items of a list result to items.
func readItems(list spec.ListResult, result frame.Node, items []ListItem) []ListItem {
	eachValue(get(result, list.Member), func(v frame.Node) bool {
		key := get(v, list.Key)
		name, named := key.Str()
		if !named {
			name = key.Text()
		}
		items = append(items, ListItem{Name: name, Named: named, Value: v})
		return true
	})
	return items
}

// ToolsOf is the listing of a client's tools/list result (nil for any other
// message): the tools the server published to the client.
func (l *ListLog) ToolsOf(m *session.Message) *Listing {
	if m.Request == nil || m.Request.Method != "tools/list" || m.Request.Dir == spec.S2C {
		return nil
	}
	return l.Of(m)
}

// toolsListing is ToolsOf of the session's Lists, for a rule that requires it.
func toolsListing(p *rule.Pass, m *session.Message) *Listing {
	return p.ResultOf(Lists).(*ListLog).ToolsOf(m)
}
