package spec

import "slices"

// ListChange is a list_changed notification and what it asks of the receiver: to
// fetch that list again. The notification carries no data of its own.
type ListChange struct {
	// Notification is the method: "notifications/tools/list_changed".
	Notification string
	// Kind names the list: "tools", "prompts", "resources", "roots".
	Kind string
	// Gate is the sender's own capability that promises the notification
	// (server.tools.listChanged); methods.tsv gives the same gate (a test checks).
	Gate Gate
	// Lists are the requests that fetch the list again: tools/list; for resources
	// resources/list or resources/templates/list.
	Lists []string
	// ListenFlag is the subscriptions/listen notifications flag that asks for it
	// under 2026-07-28 ("toolsListChanged"; "" for roots, which has none).
	ListenFlag string
}

// listChanges is the table: which notification asks for which re-list.
var listChanges = [...]ListChange{
	{Notification: "notifications/tools/list_changed", Kind: "tools", Gate: Gate{Side: Server, Path: "tools.listChanged"}, Lists: []string{"tools/list"}, ListenFlag: "toolsListChanged"},
	{Notification: "notifications/prompts/list_changed", Kind: "prompts", Gate: Gate{Side: Server, Path: "prompts.listChanged"}, Lists: []string{"prompts/list"}, ListenFlag: "promptsListChanged"},
	{Notification: "notifications/resources/list_changed", Kind: "resources", Gate: Gate{Side: Server, Path: "resources.listChanged"}, Lists: []string{"resources/list", "resources/templates/list"}, ListenFlag: "resourcesListChanged"},
	{Notification: "notifications/roots/list_changed", Kind: "roots", Gate: Gate{Side: Client, Path: "roots.listChanged"}, Lists: []string{"roots/list"}},
}

func (l ListChange) clone() ListChange {
	l.Lists = slices.Clone(l.Lists)
	return l
}

// ListChanges returns the table, tools, prompts, resources, roots in that order.
func ListChanges() []ListChange {
	out := make([]ListChange, len(listChanges))
	for i, l := range listChanges {
		out[i] = l.clone()
	}
	return out
}

// ListChangeOf returns the row of a list_changed notification.
func ListChangeOf(notification string) (ListChange, bool) {
	for _, l := range listChanges {
		if l.Notification == notification {
			return l.clone(), true
		}
	}
	return ListChange{}, false
}

// ListChangeFetchedBy returns the row whose list a request fetches again
// (tools/list, resources/templates/list, ...).
func ListChangeFetchedBy(method string) (ListChange, bool) {
	for _, l := range listChanges {
		if slices.Contains(l.Lists, method) {
			return l.clone(), true
		}
	}
	return ListChange{}, false
}

// ListChangeOfKind returns the row of a list kind ("tools").
func ListChangeOfKind(kind string) (ListChange, bool) {
	for _, l := range listChanges {
		if l.Kind == kind {
			return l.clone(), true
		}
	}
	return ListChange{}, false
}
