package spec

import "testing"

func TestLost(t *testing.T) {
	names := func(l Losses) map[string]LostMethod {
		out := map[string]LostMethod{}
		for _, m := range l.Methods {
			out[m.Name] = m
		}
		return out
	}
	down := Lost(Rev20250618, Rev20250326)
	if m := names(down)["elicitation/create"]; !m.Server || m.Client {
		t.Errorf("2025-06-18 -> 2025-03-26: elicitation/create = %+v", m)
	}
	if down.Batching || len(down.Capabilities) != 1 || down.Capabilities[0].String() != "client.elicitation" {
		t.Errorf("2025-06-18 -> 2025-03-26: batching %v, capabilities %v", down.Batching, down.Capabilities)
	}
	if !Lost(Rev20250326, Rev20250618).Batching {
		t.Errorf("2025-06-18 lacks the batching of 2025-03-26")
	}
	modern := names(Lost(Rev20251125, Rev20260728))
	if m := modern["ping"]; !m.Client || !m.Server {
		t.Errorf("ping = %+v, want lost both ways", m)
	}
	if _, ok := modern["notifications/cancelled"]; ok {
		t.Errorf("notifications/cancelled is still sent both ways in 2026-07-28")
	}
	if m, ok := modern["sampling/createMessage"]; !ok || m.Kind != KindRequest {
		t.Errorf("sampling/createMessage as a JSON-RPC request: %+v", m)
	}
	caps := map[string]bool{}
	for _, c := range Lost(Rev20251125, Rev20250326).Capabilities {
		caps[c.String()] = true
	}
	if !caps["client.elicitation"] || caps["client.elicitation.url"] || !caps["client.sampling.tools"] {
		t.Errorf("2025-11-25 -> 2025-03-26: capabilities %v (a field under a lost parent is not listed again)", caps)
	}
	if l := Lost(Rev20250618, Rev20250618); len(l.Methods)+len(l.Capabilities) != 0 || l.Batching {
		t.Errorf("a revision lacks nothing of itself: %+v", l)
	}
}
