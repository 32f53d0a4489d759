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
	// lists are the requests that fetch the list again (Lists).
	lists []string
	// ListenFlag is the subscriptions/listen notifications flag that asks for it
	// under 2026-07-28 ("toolsListChanged"; "" for roots, which has none).
	ListenFlag string
}

// listChanges is the table: which notification asks for which re-list.
var listChanges = [...]ListChange{
	{Notification: "notifications/tools/list_changed", Kind: "tools", Gate: Gate{Side: Server, Path: "tools.listChanged"}, lists: []string{"tools/list"}, ListenFlag: "toolsListChanged"},
	{Notification: "notifications/prompts/list_changed", Kind: "prompts", Gate: Gate{Side: Server, Path: "prompts.listChanged"}, lists: []string{"prompts/list"}, ListenFlag: "promptsListChanged"},
	{Notification: "notifications/resources/list_changed", Kind: "resources", Gate: Gate{Side: Server, Path: "resources.listChanged"}, lists: []string{"resources/list", "resources/templates/list"}, ListenFlag: "resourcesListChanged"},
	{Notification: "notifications/roots/list_changed", Kind: "roots", Gate: Gate{Side: Client, Path: "roots.listChanged"}, lists: []string{"roots/list"}},
}

// Lists are the requests that fetch the list again: tools/list; for resources
// resources/list or resources/templates/list.
func (l ListChange) Lists() []string { return slices.Clone(l.lists) }

// FetchedBy reports whether a request of method fetches the list again.
func (l ListChange) FetchedBy(method string) bool { return slices.Contains(l.lists, method) }

// ListChanges returns the table, tools, prompts, resources, roots in that order.
// Its rows share nothing with the table.
func ListChanges() []ListChange {
	return slices.Clone(listChanges[:])
}

// ListChangeOf returns the row of a list_changed notification.
func ListChangeOf(notification string) (ListChange, bool) {
	for _, l := range listChanges {
		if l.Notification == notification {
			return l, true
		}
	}
	return ListChange{}, false
}

// ListChangeFetchedBy returns the row whose list a request fetches again
// (tools/list, resources/templates/list, ...).
func ListChangeFetchedBy(method string) (ListChange, bool) {
	if i, ok := fetchedBy[method]; ok {
		return listChanges[i], true
	}
	return ListChange{}, false
}

// fetchedBy indexes the table by the requests that fetch a list again (asked of
// every request a session replays).
var fetchedBy = func() map[string]int {
	m := map[string]int{}
	for i, l := range listChanges {
		for _, method := range l.lists {
			m[method] = i
		}
	}
	return m
}()

// ListChangeOfKind returns the row of a list kind ("tools").
func ListChangeOfKind(kind string) (ListChange, bool) {
	for _, l := range listChanges {
		if l.Kind == kind {
			return l, true
		}
	}
	return ListChange{}, false
}
