package rules

import (
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// The items of a list result are read as every reader read them before Lists
// (and as gjson did before the port to frame.Node): the values of the result's
// first member that holds them (an array's elements, an object's member values,
// any other value once), each named by the text of its first key member, a
// member name matched unescaped.
func TestListsReadItems(t *testing.T) {
	tools, _ := spec.ListResultOf("tools/list")
	resources, _ := spec.ListResultOf("resources/list")
	for _, c := range []struct {
		list   spec.ListResult
		result string
		want   string // name:named=value, ...
	}{
		{tools, `{"tools":[{"name":"a"},{"name":"b","inputSchema":{}}]}`, `a:true={"name":"a"} b:true={"name":"b","inputSchema":{}}`},
		{tools, `{"tools":{"x":{"name":"a"},"y":{"name":42},"z":{"name":1.5e1},"w":{"name":{"k":1}},"v":{"n\u0061me":"\u00e9t\"x"}}}`,
			`a:true={"name":"a"} 42:false={"name":42} 15:false={"name":1.5e1} {"k":1}:false={"name":{"k":1}} ét"x:true={"n\u0061me":"\u00e9t\"x"}`},
		{tools, `{"tools":[{"name":"a","name":"b"},{"name":null},[{"name":"c"}]],"tools":[{"name":"z"}]}`, `a:true={"name":"a","name":"b"} :false={"name":null} :false=[{"name":"c"}]`},
		{tools, `{"tools":"abc"}`, `:false="abc"`},
		{tools, `{"tools":null}`, `:false=null`},
		{tools, `{"prompts":[{"name":"a"}]}`, ``},
		{tools, `[{"tools":[{"name":"a"}]}]`, ``},
		{resources, `{"resources":[{"uri":"file:///a","name":"a"},{"name":"b"}]}`, `file:///a:true={"uri":"file:///a","name":"a"} :false={"name":"b"}`},
	} {
		n, err := frame.Parse([]byte(c.result))
		if err != nil {
			t.Fatalf("%s: %v", c.result, err)
		}
		var got []string
		for _, item := range readItems(c.list, n, nil) {
			named := "false"
			if item.Named {
				named = "true"
			}
			got = append(got, item.Name+":"+named+"="+string(item.Value.Raw()))
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.result, g, c.want)
		}
	}
}
