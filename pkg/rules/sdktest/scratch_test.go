package sdktest

import (
	"fmt"
	"sort"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestScratchTally(t *testing.T) {
	tally := map[string]int{}
	for i := 0; i < 200; i++ {
		for _, tc := range samplingCases {
			tc.cfg.calls = []*mcp.CallToolParams{askCall}
			run := runGo(t, tc.cfg)
			log := run.serverLog.Bytes()
			lines := parseGoSDKLog(t, log)
			causal, why := causalLog(t, lines)
			res := analyse(t, "x.log", log)
			key := fmt.Sprintf("causal=%v %.40s", causal, why)
			for _, s := range res.Sessions {
				for _, f := range s.Findings {
					if loud(f) && f.Rule != "MCP2002" {
						key += " " + f.Rule
					}
				}
			}
			tally[key]++
			if !causal && tally[key] == 1 {
				t.Logf("%s\n%s\n%s", key, Numbered(log), describeResult(res))
			}
		}
	}
	var keys []string
	for k := range tally {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%5d %s", tally[k], k)
	}
}
