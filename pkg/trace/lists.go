package trace

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// Limits of what Needs.Lists keeps per session.
const (
	// maxListed caps the items kept per list kind.
	maxListed = 2048
	// maxDefinition cuts the copy of one item's definition.
	maxDefinition = 64 << 10
)

// ListedItem is one tool, prompt, resource or resource template a server
// listed: its kind (the list method), its name (a resource's URI) and its
// definition as listed (the latest one seen in the session, cut at 64 KiB).
type ListedItem struct {
	Kind       string
	Name       string
	Definition json.RawMessage
	Line       int
}

// keepListed records the items of a list result (Needs.Lists, read by
// rules.Lists): the union of every page and listing of the session, each item
// as last listed.
func keepListed(t *Trace, m *session.Message, listing *rules.Listing) {
	if listing == nil || listing.List.Method == "roots/list" { // what a server listed, not the client's roots
		return
	}
	if t.listedAt == nil {
		t.listedAt = map[[2]string]int{}
	}
	for _, item := range listing.Items {
		name := strings.Clone(item.Name) // the frame's bytes are borrowed
		key := [2]string{m.Request.Method, name}
		def := item.Value.Raw()
		if len(def) > maxDefinition {
			def = def[:maxDefinition]
		}
		entry := ListedItem{Kind: m.Request.Method, Name: name, Definition: bytes.Clone(def), Line: m.Line}
		if i, ok := t.listedAt[key]; ok {
			t.Lists[i] = entry
			continue
		}
		if len(t.listedAt) >= maxListed*serverLists {
			t.ListsOmitted++
			continue
		}
		t.listedAt[key] = len(t.Lists)
		t.Lists = append(t.Lists, entry)
	}
}

// serverLists is how many kinds of list a server answers (spec.ListResults but
// roots/list): the cap of kept items is maxListed of each.
const serverLists = 4

// sortLists orders the kept items by kind and name.
func sortLists(items []ListedItem) {
	sort.Slice(items, func(i, j int) bool {
		if items[i].Kind != items[j].Kind {
			return items[i].Kind < items[j].Kind
		}
		return items[i].Name < items[j].Name
	})
}
