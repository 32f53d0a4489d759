package schema

import (
	"strings"

	"github.com/tidwall/gjson"
)

// The field walk reads member names and the structure below them, never the
// contents of strings; gjson's ForEach decodes every string value it passes,
// which for a tool result's text is a copy of most of the message. These
// iterators hand the walk each value undecoded: objects, arrays, numbers and
// literals as gjson parses them, and strings with Raw set but Str decoded only
// when short (a long string is no const or enum value; the walk asks only its type).

// maxDecodedMember is the longest string value the iterators decode.
const maxDecodedMember = 256

// eachMember calls fn with every member of an object value, in order.
func eachMember(obj gjson.Result, fn func(key string, v gjson.Result) bool) {
	s := obj.Raw
	i := skipWS(s, 0)
	if i >= len(s) || s[i] != '{' {
		return
	}
	i = skipWS(s, i+1)
	for i < len(s) && s[i] == '"' {
		kEnd := stringEnd(s, i)
		if kEnd < 0 {
			return
		}
		key := s[i+1 : kEnd-1]
		if strings.IndexByte(key, '\\') >= 0 {
			key = gjson.Parse(s[i:kEnd]).Str
		}
		i = skipWS(s, kEnd)
		if i >= len(s) || s[i] != ':' {
			return
		}
		i = skipWS(s, i+1)
		end := valueEnd(s, i)
		if end < 0 {
			return
		}
		if !fn(key, undecoded(s[i:end])) {
			return
		}
		i = skipWS(s, end)
		if i >= len(s) || s[i] != ',' {
			return
		}
		i = skipWS(s, i+1)
	}
}

// eachItem calls fn with every item of an array value, in order.
func eachItem(arr gjson.Result, fn func(v gjson.Result) bool) {
	s := arr.Raw
	i := skipWS(s, 0)
	if i >= len(s) || s[i] != '[' {
		return
	}
	i = skipWS(s, i+1)
	for i < len(s) && s[i] != ']' {
		end := valueEnd(s, i)
		if end < 0 {
			return
		}
		if !fn(undecoded(s[i:end])) {
			return
		}
		i = skipWS(s, end)
		if i >= len(s) || s[i] != ',' {
			return
		}
		i = skipWS(s, i+1)
	}
}

// undecoded is the gjson view of one value's text (see above).
func undecoded(raw string) gjson.Result {
	if raw[0] == '"' && len(raw) > maxDecodedMember {
		return gjson.Result{Type: gjson.String, Raw: raw}
	}
	return gjson.Parse(raw)
}

func skipWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the offset just past the string starting at s[i] ('"'), or -1.
func stringEnd(s string, i int) int {
	for j := i + 1; j < len(s); {
		k := strings.IndexAny(s[j:], `"\`)
		if k < 0 {
			return -1
		}
		j += k
		if s[j] == '"' {
			return j + 1
		}
		j += 2 // an escape: the byte after the backslash is never the closing quote
	}
	return -1
}

// valueEnd returns the offset just past the JSON value starting at s[i], or -1.
// The text is a validated message: brackets are balanced outside strings.
func valueEnd(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	switch s[i] {
	case '"':
		return stringEnd(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				end := stringEnd(s, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(s) && strings.IndexByte(",}] \t\n\r", s[j]) < 0 {
		j++
	}
	if j == i {
		return -1
	}
	return j
}
