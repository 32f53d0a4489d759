package spec

import (
	"slices"
	"strings"
)

// ListResult is what the result of a list request holds: the member whose value
// is the items, and the member of an item that names it (what tells two items
// apart, across lists of one kind).
type ListResult struct {
	// Method is the list request: "tools/list".
	Method string
	// Member is the result's member that holds the items: "tools".
	Member string
	// Key is the item's member that names it: "name"; a resource's "uri".
	Key string
	// Item is the schemas' definition of an item: "Tool".
	Item string
	// Definitions says the items are definitions the server publishes (tools,
	// prompts, resource templates), not data of the session (resources, roots).
	Definitions bool
}

// listResults is the table; a test checks it against every revision's schema
// (the result's definition holds Member, the item's requires Key).
var listResults = [...]ListResult{
	{Method: "tools/list", Member: "tools", Key: "name", Item: "Tool", Definitions: true},
	{Method: "prompts/list", Member: "prompts", Key: "name", Item: "Prompt", Definitions: true},
	{Method: "resources/list", Member: "resources", Key: "uri", Item: "Resource"},
	{Method: "resources/templates/list", Member: "resourceTemplates", Key: "uriTemplate", Item: "ResourceTemplate", Definitions: true},
	{Method: "roots/list", Member: "roots", Key: "uri", Item: "Root"},
}

// ListResultOf returns the row of a list request.
func ListResultOf(method string) (ListResult, bool) {
	if !strings.HasSuffix(method, "/list") { // asked of every result a session replays
		return ListResult{}, false
	}
	for _, l := range listResults {
		if l.Method == method {
			return l, true
		}
	}
	return ListResult{}, false
}

// ListResults returns the table: tools, prompts, resources, resource templates,
// roots.
func ListResults() []ListResult { return slices.Clone(listResults[:]) }
