package config

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Suppression hides the findings that match every field it sets, with the reason
// a person gave: a known problem a team accepts (an old server that will not be
// fixed, a rule that does not apply to one tool). A suppressed finding is
// counted, never shown, and does not fail the run.
type Suppression struct {
	// Rule is a rule ID or name.
	Rule string `json:"rule,omitempty"`
	// Path is a glob on the input's path (a name such as '*.har', or a path
	// with ** such as 'archive/legacy/**').
	Path string `json:"path,omitempty"`
	// Client and Server are implementation names (clientInfo.name,
	// serverInfo.name), compared exactly.
	Client string `json:"client,omitempty"`
	Server string `json:"server,omitempty"`
	// Method is the method of the finding's frame (a response's: the request's).
	Method string `json:"method,omitempty"`
	// Fingerprint is one finding's fingerprint (the JSON report's).
	Fingerprint string `json:"fingerprint,omitempty"`
	// Reason says why; required.
	Reason string `json:"reason"`
	// Line is where the entry starts in the file.
	Line int `json:"line"`
}

// suppressionFields are the fields of a suppress entry, in the order errors
// list them.
var suppressionFields = []string{"rule", "path", "client", "server", "method", "fingerprint", "reason"}

// suppressions reads the suppress key: a list of mappings, each with a reason
// and at least one field to match.
func (c *Config) suppressions(v *yaml.Node) ([]Suppression, []error) {
	if v.Kind != yaml.SequenceNode {
		return nil, []error{c.errAt(v, "suppress: want a list of entries (rule, path, client, server, method or fingerprint, and a reason), not %s", describe(v))}
	}
	var out []Suppression
	var errs []error
	for _, item := range v.Content {
		if item.Kind != yaml.MappingNode {
			errs = append(errs, c.errAt(item, "suppress: want an entry (rule, path, client, server, method or fingerprint, and a reason), not %s", describe(item)))
			continue
		}
		s := Suppression{Line: item.Line}
		ok := true
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, val := item.Content[j], item.Content[j+1]
			if val.Kind != yaml.ScalarNode {
				errs = append(errs, c.errAt(val, "suppress: %s: want a text, not %s", k.Value, describe(val)))
				ok = false
				continue
			}
			field := map[string]*string{"rule": &s.Rule, "path": &s.Path, "client": &s.Client, "server": &s.Server,
				"method": &s.Method, "fingerprint": &s.Fingerprint, "reason": &s.Reason}[k.Value]
			if field == nil {
				errs = append(errs, c.errAt(k, "suppress: unknown field %q (known: %s)", k.Value, strings.Join(suppressionFields, ", ")))
				ok = false
				continue
			}
			*field = strings.TrimSpace(val.Value)
		}
		switch {
		case !ok:
		case s.Reason == "":
			errs = append(errs, c.errAt(item, "suppress: an entry needs a reason: say why these findings are accepted"))
		case s.Rule == "" && s.Path == "" && s.Client == "" && s.Server == "" && s.Method == "" && s.Fingerprint == "":
			errs = append(errs, c.errAt(item, "suppress: an entry needs something to match (rule, path, client, server, method or fingerprint)"))
		default:
			out = append(out, s)
		}
	}
	return out, errs
}
