package rule

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Fingerprint identifies a finding across runs and captures: the same problem of
// the same pair of implementations has the same fingerprint, wherever it stands
// in a capture. It is made of the rule, the client's and the server's names, the
// method, and the message's shape: the message with the values that change from
// run to run (ids, data, URIs, error messages, credentials) and every run of
// digits (lines, counts, durations) taken out. Names a peer chose (tools, fields)
// and protocol strings stay: a problem of another tool is another problem.
// --baseline and SARIF partialFingerprints match on it; never the line.
func Fingerprint(f Finding, client, server string) string {
	h := sha256.New()
	for _, part := range []string{f.Rule, client, server, f.Method, messageShape(f)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// messageShape is a finding's message without what varies between runs.
func messageShape(f Finding) string {
	// The side at fault is no part of the shape: a rule that learns to name it
	// keeps its fingerprints (and the baselines that hold them).
	msg := strings.TrimSuffix(f.Message, faultSuffix(f.Party))
	for _, v := range f.Values {
		switch v.Kind {
		case ValueName, ValueVersion, ValueDefinition:
			continue
		}
		if v.Shown != "" {
			msg = strings.ReplaceAll(msg, v.Shown, "\x00")
		}
	}
	var b strings.Builder
	digits := false
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c >= '0' && c <= '9' {
			if !digits {
				b.WriteByte('#')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteByte(c)
	}
	return b.String()
}
