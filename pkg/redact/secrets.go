package redact

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
)

// secretNameEnds are the endings of member, header and parameter names whose
// value is a credential (apiKey, x-api-key, GITHUB_TOKEN, session_id, ...), in
// lower case: a name of letters, digits, '_', '.' and '-' that ends with one.
var secretNameEnds = []string{
	"apikey", "api_key", "api-key", "accesskey", "access_key", "access-key", "secret", "password", "passwd", "passphrase",
	"credential", "credentials", "privatekey", "private_key", "private-key", "token", "sessionid", "session_id", "session-id",
	"auth", "authorization", "cookie", "signature",
}

// notSecretNames are names secretName matches that hold no credential.
var notSecretNames = map[string]bool{"progresstoken": true, "maxtokens": true}

// minSecretText is the shortest text a secret pattern can match ("token=x",
// "cookie:x"): shorter strings (most protocol values) are not searched.
const minSecretText = 6

// secretPatterns find credentials in free text. Each has the secret in its last
// group (or is the secret as a whole when it has no group).
var secretPatterns = []*regexp.Regexp{
	// Header-like fields: Authorization: Bearer x, "cookie":"a=b", Set-Cookie: ...
	regexp.MustCompile(`(?i)\b((?:proxy-)?authorization|set-cookie|cookie)(\\?["']?\s*[:=]\s*\\?["']?)([^"'\\\r\n]+)`),
	// name=value and "name": "value" pairs whose name says credential.
	regexp.MustCompile(`(?i)\b([a-z0-9_.-]*(?:api[_-]?key|apikey|access[_-]?key|secret|password|passwd|passphrase|credentials?|private[_-]?key|token|session[_-]?id|sessionid|signature|x-api-key))(\\?["']?\s*[:=]\s*\\?["']?)([A-Za-z0-9._~+/=%:-][^"'\\\s,;&}\]]*)`),
	// Scheme credentials and well-known token shapes.
	regexp.MustCompile(`(?i)\b(bearer)(\s+)([A-Za-z0-9._~+/=-]{8,})`),
	regexp.MustCompile(`\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}`),
	regexp.MustCompile(`\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{10,}`),
	regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{20,}`),
	regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`),
	regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`),
	regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`),
	regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`),
	regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{30,}`),
	regexp.MustCompile(`\bnpm_[A-Za-z0-9]{30,}`),
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}`),
	regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`),
	// Query parameters that carry a credential whatever their generic names:
	// a SAS token's signature (sig=), an OAuth authorization code and PKCE
	// verifier (code=, code_verifier=). Only in a query: "code" elsewhere is an
	// error code.
	regexp.MustCompile(`(?i)[?&](sig|code|code_verifier)(=)([^&#\s"'\\]+)`),
	// Passwords in URLs: scheme://user:password@host
	regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@"']+)(:)([^@\s/"']+)@`),
}

// MaskSecrets masks secret-looking substrings of captured text: credentials in
// header-like fields and name=value pairs, bearer tokens, API keys of well-known
// shapes, JWTs, private keys, passwords in URLs, and token-like path segments
// (/u/<32 hex digits>/mcp: a credential in a URL path).
func MaskSecrets(s string) string {
	return maskSecrets(s, nil)
}

// maskSecrets is MaskSecrets; found, when set, receives each secret it masks.
func maskSecrets(s string, found func(secret string)) string {
	if len(s) < minSecretText {
		return s
	}
	if !mayMatchPatterns(s) {
		return maskPathTokens(s, found)
	}
	for _, re := range secretPatterns {
		var b strings.Builder
		prev, masked := 0, false
		eachSecret(re, s, func(start, end int) {
			if found != nil {
				found(s[start:end])
			}
			b.WriteString(s[prev:start])
			b.WriteString(secretPlaceholder(s[start:end]))
			prev, masked = end, true
		})
		if masked {
			b.WriteString(s[prev:])
			s = b.String()
		}
	}
	return maskPathTokens(s, found)
}

// eachSecret calls f with the bounds of each secret the pattern finds in s: the
// whole match, or the secret of a name, a separator and a secret (unless the
// name says it holds none), never a placeholder already there.
func eachSecret(re *regexp.Regexp, s string, f func(start, end int)) {
	for _, loc := range re.FindAllStringSubmatchIndex(s, -1) {
		start, end := loc[0], loc[1]
		if len(loc) >= 8 && loc[6] >= 0 { // name, separator, secret
			if notSecretNames[strings.ToLower(s[loc[2]:loc[3]])] {
				continue
			}
			start, end = loc[6], loc[7]
		}
		if !strings.HasPrefix(s[start:end], "[redacted") {
			f(start, end)
		}
	}
}

// mayMatchPatterns reports whether some secret pattern may match in s: false
// only when none can, so that most strings (names, descriptions, schema text)
// are not searched with each expression. Each pattern needs a word of its own
// to match (a name saying credential and a ':' or '=' after it, "bearer", a
// token's prefix, "://"). Those words are ASCII, and no byte of a character
// that is not ASCII is part of one, with two exceptions: under (?i), 'k' and 's'
// also match U+212A (KELVIN SIGN) and U+017F (LATIN SMALL LETTER LONG S), the two
// characters beyond ASCII whose case folds to an ASCII letter. Text that holds
// either is searched.
func mayMatchPatterns(s string) bool {
	sep := strings.IndexByte(s, ':') >= 0 || strings.IndexByte(s, '=') >= 0
	foldsLooked := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			if !foldsLooked {
				if strings.Contains(s, "\u212a") || strings.Contains(s, "\u017f") {
					return true
				}
				foldsLooked = true
			}
			continue
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		rest := s[i:]
		switch c {
		case 'a': // authorization (pattern 1), api key (2), AKIA, ASIA, AIza
			if sep && hasPrefixFold(rest, "authorization") {
				return true
			}
			if strings.HasPrefix(rest, "AKIA") || strings.HasPrefix(rest, "ASIA") || strings.HasPrefix(rest, "AIza") {
				return true
			}
		case 'c': // cookie, set-cookie (1), credential (2)
			if sep && (hasPrefixFold(rest, "cookie") || hasPrefixFold(rest, "credential")) {
				return true
			}
		case 'k': // apikey, api_key, access-key, private_key, x-api-key (2)
			if sep && hasPrefixFold(rest, "key") {
				return true
			}
		case 'p': // password, passwd, passphrase (2), pk-
			if sep && hasPrefixFold(rest, "pass") || strings.HasPrefix(rest, "pk-") {
				return true
			}
		case 's': // secret, session id, signature (2), sk-
			if sep && (hasPrefixFold(rest, "secret") || hasPrefixFold(rest, "session") || hasPrefixFold(rest, "signature")) {
				return true
			}
			if strings.HasPrefix(rest, "sk-") {
				return true
			}
		case 't': // token (2)
			if sep && hasPrefixFold(rest, "token") {
				return true
			}
		case '?', '&': // sig=, code=, code_verifier= in a query
			if hasPrefixFold(rest[1:], "sig=") || hasPrefixFold(rest[1:], "code=") || hasPrefixFold(rest[1:], "code_verifier=") {
				return true
			}
		case 'b': // bearer (3)
			if hasPrefixFold(rest, "bearer") {
				return true
			}
		case 'r': // rk-
			if strings.HasPrefix(rest, "rk-") {
				return true
			}
		case '_': // sk_live_, pk_test_, ...
			if strings.HasPrefix(rest, "_live_") || strings.HasPrefix(rest, "_test_") {
				return true
			}
		case 'g': // ghp_ and the other GitHub tokens, github_pat_, glpat-
			if len(rest) >= 4 && rest[0] == 'g' && rest[1] == 'h' && strings.IndexByte("pousr", rest[2]) >= 0 && rest[3] == '_' {
				return true
			}
			if strings.HasPrefix(rest, "github_pat_") || strings.HasPrefix(rest, "glpat-") {
				return true
			}
		case 'x': // xoxb- and the other Slack tokens
			if strings.HasPrefix(rest, "xox") {
				return true
			}
		case 'n': // npm_
			if strings.HasPrefix(rest, "npm_") {
				return true
			}
		case 'e': // eyJ (JWT)
			if strings.HasPrefix(rest, "eyJ") {
				return true
			}
		case '-': // -----BEGIN ... PRIVATE KEY-----
			if strings.HasPrefix(rest, "-----BEGIN ") {
				return true
			}
		case ':': // scheme://user:password@host
			if strings.HasPrefix(rest, "://") {
				return true
			}
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with prefix (lower-case ASCII letters),
// ignoring the case of ASCII letters.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && equalFoldASCII(s[:len(prefix)], prefix)
}

func secretPlaceholder(secret string) string {
	return "[redacted secret, " + quote.Count(utf8.RuneCountInString(secret), "char") + "]"
}

// maskPathTokens masks the path segments of URLs and paths that look like
// tokens (eachPathToken).
func maskPathTokens(s string, found func(string)) string {
	var b strings.Builder
	prev := 0
	eachPathToken(s, func(start, end int) {
		if found != nil {
			found(s[start:end])
		}
		b.WriteString(s[prev:start])
		b.WriteString(secretPlaceholder(s[start:end]))
		prev = end
	})
	if prev == 0 {
		return s
	}
	b.WriteString(s[prev:])
	return b.String()
}

// eachPathToken calls f with the bounds of each path segment of s that looks
// like a token (pathToken): the segment between a slash and the next slash,
// query, fragment, quote or space.
func eachPathToken(s string, f func(start, end int)) {
	if !strings.Contains(s, "/") {
		return
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '/' {
			continue
		}
		end := i + 1
		for end < len(s) && isPathTokenByte(s[end]) {
			end++
		}
		if seg := s[i+1 : end]; (end == len(s) || !isWordByte(s[end])) && pathToken(seg) {
			f(i+1, end)
		}
		i = end - 1
	}
}

// secretSpans returns what MaskSecrets hides in s, in s's own offsets. It runs
// the patterns as MaskSecrets does, one after another on the text the ones
// before rewrote (a later one can match across an earlier one's placeholder,
// and an earlier one can break what a later one would stop at: a "token=" value
// that takes a private key's END line makes the key run to the text's end), and
// maps each match back through the placeholders before it (pieces).
func secretSpans(s string) []hidden {
	if len(s) < minSecretText {
		return nil
	}
	m := rewriting{cur: s, pieces: []piece{{at: 0, end: len(s), orig: 0, origEnd: len(s)}}}
	if mayMatchPatterns(s) {
		for _, re := range secretPatterns {
			var found [][2]int
			eachSecret(re, m.cur, func(start, end int) { found = append(found, [2]int{start, end}) })
			m.mask(s, found)
		}
	}
	var found [][2]int
	eachPathToken(m.cur, func(start, end int) { found = append(found, [2]int{start, end}) })
	m.mask(s, found)
	return m.spans
}

// rewriting is a text as MaskSecrets rewrites it, pass after pass: its pieces
// say where each run of it comes from in the text as captured, and spans are the
// captured runs its placeholders hide.
type rewriting struct {
	cur    string
	pieces []piece
	spans  []hidden
}

// piece is a run [at, end) of the rewritten text: the captured run [orig,
// origEnd) as it was, or a placeholder that hides it.
type piece struct {
	at, end, orig, origEnd int
	placeholder            bool
}

// mask replaces the runs found (in order, apart) with their placeholders, as
// maskSecrets does, and records what each hides of the captured text s.
func (m *rewriting) mask(s string, found [][2]int) {
	if len(found) == 0 {
		return
	}
	var b strings.Builder
	var pieces []piece
	keep := func(from, to int) { // cur[from:to] as it is, with its pieces
		base := b.Len()
		b.WriteString(m.cur[from:to])
		for _, p := range m.pieces {
			if p.end <= from || p.at >= to {
				continue
			}
			f, t := max(p.at, from), min(p.end, to)
			q := piece{at: base + f - from, end: base + t - from, orig: p.orig, origEnd: p.origEnd, placeholder: p.placeholder}
			if !p.placeholder {
				q.orig, q.origEnd = p.orig+f-p.at, p.orig+t-p.at
			}
			pieces = append(pieces, q)
		}
	}
	prev := 0
	for _, r := range found {
		keep(prev, r[0])
		from, to := m.origOf(r[0], r[1])
		m.spans = append(m.spans, hidden{start: from, end: to, with: secretPlaceholder(s[from:to]), secret: true})
		at := b.Len()
		b.WriteString(secretPlaceholder(m.cur[r[0]:r[1]]))
		pieces = append(pieces, piece{at: at, end: b.Len(), orig: from, origEnd: to, placeholder: true})
		prev = r[1]
	}
	keep(prev, len(m.cur))
	m.cur, m.pieces = b.String(), pieces
}

// origOf maps the run [a, b) of the rewritten text to the captured run it
// comes from: a placeholder it starts or ends in counts whole.
func (m *rewriting) origOf(a, b int) (from, to int) {
	from, to = -1, -1
	for _, p := range m.pieces {
		if from < 0 && a < p.end {
			if from = p.orig; !p.placeholder {
				from += max(a-p.at, 0)
			}
		}
		if b <= p.end && (b > p.at || a == b) {
			if to = p.origEnd; !p.placeholder {
				to = p.orig + b - p.at
			}
			break
		}
	}
	if from < 0 { // at the text's end
		from = len(m.pieces) - 1
		if from < 0 {
			return 0, 0
		}
		from = m.pieces[from].origEnd
	}
	if to < from {
		to = from
	}
	return from, to
}

func isPathTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' || c == '=' || c == '+'
}

func isWordByte(c byte) bool { return c >= 0x80 || isPathTokenByte(c) }

// pathToken reports whether a path segment looks like a credential rather than
// a name: 16 or more hex digits (with dashes, as a UUID), or 20 or more
// characters of base64 or base64url mixing digits with lower and upper case.
// Words, dates, versions and file names do not: "mcp", "2025-06-18",
// "notes.txt", "tools-v2".
func pathToken(seg string) bool {
	if len(seg) < 16 {
		return false
	}
	hex, digits, lower, upper := 0, 0, 0, 0
	for i := 0; i < len(seg); i++ {
		switch c := seg[i]; {
		case c >= '0' && c <= '9':
			digits++
			hex++
		case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
			hex++
			if c >= 'a' {
				lower++
			} else {
				upper++
			}
		case c >= 'a' && c <= 'z':
			lower++
		case c >= 'A' && c <= 'Z':
			upper++
		}
	}
	allHex := hex+strings.Count(seg, "-") == len(seg)
	switch {
	case allHex && hex >= 16 && digits > 0:
		return true
	case len(seg) >= 20 && digits > 0 && lower > 0 && upper > 0 && !strings.Contains(seg, "."):
		return true
	}
	return false
}

// isSecretName reports whether a member, header or parameter name says its
// value is a credential (called for every member of every frame under --redact:
// no regular expression).
func isSecretName(name string) bool {
	if len(name) < 4 {
		return equalFoldASCII(name, "pwd")
	}
	if len(name) == 4 && equalFoldASCII(name, "pass") {
		return true // a password's short name; as an ending it would take "bypass", "compass"
	}
	ends := secretEndsByLast[name[len(name)-1]]
	if len(ends) == 0 {
		return false // most names: no ending has their last letter
	}
	found := false
	for _, end := range ends {
		if len(name) >= len(end) && equalFoldASCII(name[len(name)-len(end):], end) {
			found = true
			break
		}
	}
	if !found {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_', c == '.', c == '-':
		default:
			return false
		}
	}
	for notSecret := range notSecretNames {
		if len(name) == len(notSecret) && equalFoldASCII(name, notSecret) {
			return false
		}
	}
	return true
}

// secretEndsByLast are secretNameEnds by their last byte, in either case.
var secretEndsByLast = func() (by [256][]string) {
	for _, end := range secretNameEnds {
		last := end[len(end)-1]
		by[last] = append(by[last], end)
		if last >= 'a' && last <= 'z' {
			by[last-'a'+'A'] = append(by[last-'a'+'A'], end)
		}
	}
	return by
}()

// equalFoldASCII reports whether s is lower, a lower-case ASCII text, ignoring
// the case of ASCII letters in s.
func equalFoldASCII(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// tokenLike matches stream keys that look like session identifiers (HTTP
// Mcp-Session-Id values are bearer-like): long runs of token characters.
var tokenLike = regexp.MustCompile(`^[A-Za-z0-9._~+/=-]{20,}$`)

// StreamKey redacts a session's stream key: one that looks like a session
// identifier is replaced whole, secrets in others are masked.
func StreamKey(key string) string {
	if tokenLike.MatchString(key) {
		return "[redacted stream key, " + quote.Count(len(key), "char") + "]"
	}
	return MaskSecrets(key)
}
