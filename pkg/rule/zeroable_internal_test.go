package rule

import (
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

type zeroChecker struct {
	seen map[string]int
	n    int
}

func (*zeroChecker) Message(*Pass, *session.Message) {}
func (*zeroChecker) End(*Pass)                       {}

type setChecker struct{ limit int }

func (*setChecker) Message(*Pass, *session.Message) {}
func (*setChecker) End(*Pass)                       {}

func TestZeroable(t *testing.T) {
	shared := &zeroChecker{}
	for _, c := range []struct {
		name   string
		c1, c2 Checker
		want   bool
	}{
		{"fresh zero structs", &zeroChecker{}, &zeroChecker{}, true},
		{"one shared pointer", shared, shared, false},
		{"settings", &setChecker{limit: 3}, &setChecker{limit: 3}, false},
		{"state already", &zeroChecker{n: 1}, &zeroChecker{n: 1}, false},
		{"a map already", &zeroChecker{seen: map[string]int{}}, &zeroChecker{seen: map[string]int{}}, false},
		{"not a pointer", Funcs{}, Funcs{}, false},
	} {
		if got := zeroable(c.c1, c.c2); got != c.want {
			t.Errorf("%s: zeroable = %v, want %v", c.name, got, c.want)
		}
	}
}
