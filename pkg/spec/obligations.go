package spec

import "strings"

// obligations says what declaring a capability commits its declarer to, where the
// gates column of capabilities.tsv does not say it in so many words.
var obligations = map[string]string{
	"server.tools":                 "answer tools/list and tools/call",
	"server.tools.listChanged":     "send notifications/tools/list_changed whenever the tool list changes; clients may cache the list and never re-list on their own",
	"server.prompts":               "answer prompts/list and prompts/get",
	"server.prompts.listChanged":   "send notifications/prompts/list_changed whenever the prompt list changes",
	"server.resources":             "answer resources/list, resources/templates/list and resources/read",
	"server.resources.listChanged": "send notifications/resources/list_changed whenever the resource list changes",
	"server.resources.subscribe":   "implement resources/subscribe and resources/unsubscribe, and send notifications/resources/updated when a subscribed resource changes",
	"server.logging":               "accept logging/setLevel (legacy) and send logs only as notifications/message",
	"server.completions":           "answer completion/complete",
	"client.roots":                 "answer roots/list with the roots the server may work in",
	"client.roots.listChanged":     "send notifications/roots/list_changed whenever the roots change",
	"client.sampling":              "answer sampling/createMessage (with a human able to approve it)",
	"client.sampling.tools":        "accept tools and toolChoice in sampling/createMessage",
	"client.sampling.context":      "honour includeContext thisServer/allServers",
	"client.elicitation":           "answer elicitation/create (form mode when the object is empty)",
	"client.elicitation.url":       "handle URL-mode elicitation",
}

// Obligation says what declaring c commits its declarer to ("answer tools/list and
// tools/call"); "" when the capability promises nothing to do (experimental,
// extensions, flags that gate nothing).
func (c Capability) Obligation() string {
	if strings.HasPrefix(c.Path, "experimental") || c.Path == "extensions" {
		return ""
	}
	if must, ok := obligations[c.String()]; ok {
		return must
	}
	if c.Gates == "" || strings.HasPrefix(c.Gates, "none") {
		return ""
	}
	return "support " + c.Gates
}
