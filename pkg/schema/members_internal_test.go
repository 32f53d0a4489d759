package schema

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestMembersAsGjson: the undecoding iterators see the members and items gjson's
// ForEach sees, with the same keys, types and raw texts, and the same decoded
// strings where they decode them.
func TestMembersAsGjson(t *testing.T) {
	long := `"` + strings.Repeat(`line\n`, 100) + `"`
	for _, doc := range []string{
		`{}`, `[]`, ` { "a" : 1 , "b":[1, 2 ,{"c":"d"}], "e\"f":"g\\\"h", "\u00e9t\u00e9":true,"n":null,"x":-1.5e3 } `,
		`{"text":` + long + `,"type":"text","empty":"","esc":"\\","sl":"a\/b"}`,
		`[1,"two",{"three":3},[4],true,false,null, ` + long + ` ]`,
		`{"nested":{"deep":{"deeper":[{"k":"v"}]}},"s":"]}\"{["}`,
	} {
		v := gjson.Parse(doc)
		type seen struct {
			key, raw, str string
			typ           gjson.Type
		}
		var want, got []seen
		v.ForEach(func(k, item gjson.Result) bool {
			key := k.String()
			if v.IsArray() {
				key = "" // items have no key
			}
			want = append(want, seen{key, item.Raw, item.Str, item.Type})
			return true
		})
		add := func(key string, item gjson.Result) bool {
			str := item.Str
			if item.Type == gjson.String && len(item.Raw) > maxDecodedMember {
				str = gjson.Parse(item.Raw).Str // not decoded, by design: compare the rest
			}
			got = append(got, seen{key, item.Raw, str, item.Type})
			return true
		}
		if v.IsObject() {
			eachMember(v, add)
		} else {
			eachItem(v, func(item gjson.Result) bool { return add("", item) })
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d members, gjson sees %d: %+v", doc, len(got), len(want), got)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: member %d = %+v, gjson sees %+v", doc, i, got[i], want[i])
			}
		}
	}
}
