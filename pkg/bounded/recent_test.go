package bounded

import "testing"

func TestRecentRemembersTheLatestHalfAtLeast(t *testing.T) {
	var r Recent[int, string]
	const limit = 8
	forgot := 0
	for k := range 100 {
		forgot += r.Put(k, "v", limit)
		if r.Len() > limit {
			t.Fatalf("after %d keys: %d remembered, more than %d", k+1, r.Len(), limit)
		}
		for back := range min(k+1, limit/2) {
			if _, ok := r.Get(k - back); !ok {
				t.Fatalf("after key %d: key %d (among the last %d) forgotten", k, k-back, limit/2)
			}
		}
	}
	if forgot+r.Len() != 100 {
		t.Errorf("forgot %d and remember %d: want them to add up to the 100 keys put", forgot, r.Len())
	}
	if _, ok := r.Get(0); ok {
		t.Error("key 0 is still remembered after 100 keys")
	}
}

func TestRecentForgetsOnlyPastTheLimit(t *testing.T) {
	var r Recent[string, int]
	for i, k := range []string{"a", "b", "c", "d"} {
		if n := r.Put(k, i, 4); n != 0 {
			t.Fatalf("put %q forgot %d keys within the limit", k, n)
		}
	}
	if n := r.Put("e", 4, 4); n != 2 {
		t.Errorf("the fifth key forgot %d keys, want the oldest generation (2)", n)
	}
	for k, want := range map[string]bool{"a": false, "b": false, "c": true, "d": true, "e": true} {
		if _, ok := r.Get(k); ok != want {
			t.Errorf("Get(%q) remembered=%v, want %v", k, ok, want)
		}
	}
}

func TestRecentPutKeepsAKeysPlace(t *testing.T) {
	var r Recent[string, int]
	r.Put("old", 1, 4)
	r.Put("b", 2, 4)
	r.Put("old", 3, 4) // an update: "old" stays the oldest
	r.Put("c", 4, 4)
	r.Put("d", 5, 4)
	r.Put("e", 6, 4) // forgets the generation of "old" and "b"
	if _, ok := r.Get("old"); ok {
		t.Error("an updated key became the newest; it keeps the age of its first Put")
	}
	if v, ok := r.Get("d"); !ok || v != 5 {
		t.Errorf("Get(d) = %d, %v; want 5, true", v, ok)
	}
	r.Clear()
	if r.Len() != 0 {
		t.Errorf("Len after Clear = %d", r.Len())
	}
	if _, ok := r.Get("e"); ok {
		t.Error("Clear kept a key")
	}
}
