package redact

import "testing"

// patternMatches reports whether some secret pattern matches in s.
func patternMatches(s string) bool {
	for _, re := range secretPatterns {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// TestMayMatchPatterns checks the prefilter of the secret patterns both ways: it
// never says no where a pattern matches (text beyond ASCII included, where 'k' and
// 's' also match the Kelvin sign and the long s), and it says no to text of other
// scripts that holds none of the patterns' words, which is searched with no
// expression.
func TestMayMatchPatterns(t *testing.T) {
	for _, s := range []string{
		"Müller token=abc123def",
		"to\u212aen=abcdef12",               // Kelvin sign for the k of token
		"pa\u017f\u017fword: hunter2",       // long s for the s of password
		"my_\u017fecret=abcdef",             // long s inside a name
		"api\u212aey: 12345678",             // Kelvin sign in api key
		"Überweisung, Bearer abcdefgh12345", // a bearer token after text of another script
		"déjà vu https://user:pa55@example.com",
		"日本語 sk-abcdefghijklmnopqrstuvwx",
		"заказ ghp_abcdefghijklmnopqrstuvwxyz",
		"Ünïcode ?sig=abcdef",
		"naïve authorization: xyz",
		"Zürich cookie=a=b",
	} {
		if !patternMatches(s) {
			t.Errorf("%q: no pattern matches; the case tests nothing", s)
			continue
		}
		if !mayMatchPatterns(s) {
			t.Errorf("mayMatchPatterns(%q) = false, but a secret pattern matches", s)
		}
	}
	for _, s := range []string{
		"Überweisung für Müller & Söhne (Zürich) verbucht: 83620,69 €",
		"pdf uploaded by François Ørsted (naïve check passed) 📦",
		"日本語のテキスト: 請求書",
		"\xff\xfe invalid bytes: nothing hidden",
	} {
		if patternMatches(s) {
			t.Errorf("%q: a pattern matches; the case tests nothing", s)
			continue
		}
		if mayMatchPatterns(s) {
			t.Errorf("mayMatchPatterns(%q) = true: text beyond ASCII with none of the patterns' words is searched", s)
		}
	}
}

// FuzzMayMatchPatterns: wherever a secret pattern matches, the prefilter lets the
// text be searched.
func FuzzMayMatchPatterns(f *testing.F) {
	for _, s := range []string{"token=abc", "to\u212aen=abcdef12", "pa\u017f\u017fword: x", "Müller & Söhne", "Bearer abcdefgh1", "x://u:p@h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if patternMatches(s) && !mayMatchPatterns(s) {
			t.Fatalf("mayMatchPatterns(%q) = false, but a secret pattern matches", s)
		}
	})
}
