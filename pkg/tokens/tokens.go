// Package tokens counts text in tokens as a model's tokenizer splits it, offline:
// the vocabularies are compiled into the program (github.com/tiktoken-go/tokenizer).
// Two encodings are offered, OpenAI's o200k_base (the default: GPT-4o and later)
// and cl100k_base (GPT-4, GPT-3.5); other models, Claude's among them, tokenize
// otherwise, so a count is the cost of a text to within a model's own difference,
// not its exact bill. What a session carries on every turn (a server's
// instructions, its tool definitions) is counted here, for MCP1007 and the
// handshake view alike.
package tokens

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Encoding names a tokenizer's vocabulary.
type Encoding string

const (
	// O200k is o200k_base, the default.
	O200k Encoding = "o200k_base"
	// Cl100k is cl100k_base.
	Cl100k Encoding = "cl100k_base"
)

// Default is the encoding counts use unless told otherwise.
const Default = O200k

// codecs load each vocabulary once, on its first use (o200k_base takes about
// 40 ms): a run that counts nothing pays nothing. They are read-only after.
var codecs = map[Encoding]func() (tokenizer.Codec, error){
	O200k:  sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(tokenizer.O200kBase) }),
	Cl100k: sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(tokenizer.Cl100kBase) }),
}

// Count returns the tokens of text in the encoding.
func Count(text string, enc Encoding) (int, error) {
	load, ok := codecs[enc]
	if !ok {
		return 0, fmt.Errorf("mcpsleuth: tokens: unknown encoding %q (o200k_base or cl100k_base)", enc)
	}
	if text == "" {
		return 0, nil
	}
	c, err := load()
	if err != nil {
		return 0, fmt.Errorf("mcpsleuth: tokens: loading %s: %w", enc, err)
	}
	n, err := c.Count(text)
	if err != nil {
		return 0, fmt.Errorf("mcpsleuth: tokens: counting in %s: %w", enc, err)
	}
	return n, nil
}

// Of returns the tokens of text in the default encoding; a text the tokenizer
// cannot read is counted at 4 bytes a token instead.
func Of(text string) int {
	n, err := Count(text, Default)
	if err != nil {
		return (len(text) + 3) / 4
	}
	return n
}

// Memo counts texts in the default encoding and remembers each count by the
// text's hash, so that a run counts the same text (a tool definition every
// session lists) once. Safe for concurrent use; one a run, never global.
type Memo struct {
	mu     sync.Mutex
	counts map[uint64]int
}

// maxMemo bounds the texts a Memo remembers (beyond it, texts are counted each
// time).
const maxMemo = 1 << 16

// NewMemo returns an empty memo.
func NewMemo() *Memo { return &Memo{counts: map[uint64]int{}} }

// Of returns the tokens of text (as Of does), counted once per distinct text.
func (m *Memo) Of(text []byte) int {
	return m.count(asText, text, func() string { return string(text) })
}

// What a memo's count is of: the same bytes count otherwise as text (Of) and
// as JSON (OfJSON, compacted), and each is remembered apart, so that a count
// never depends on which of the two came first (the sessions of a file judged
// apart count at once).
const (
	asText byte = iota
	asJSON
)

// OfJSON returns the tokens of a JSON value as a model receives it (compacted;
// as it is when it is not JSON), counted once per distinct value as captured: a
// value seen before costs a hash of its bytes.
func (m *Memo) OfJSON(raw []byte) int {
	return m.count(asJSON, raw, func() string {
		var b bytes.Buffer
		if json.Compact(&b, raw) != nil {
			return string(raw)
		}
		return b.String()
	})
}

// count looks key's count as kind up, and counts the text made on a miss.
func (m *Memo) count(kind byte, key []byte, text func() string) int {
	h := fnv.New64a()
	h.Write([]byte{kind})
	h.Write(key)
	sum := h.Sum64()
	m.mu.Lock()
	n, ok := m.counts[sum]
	m.mu.Unlock()
	if ok {
		return n
	}
	n = Of(text())
	m.mu.Lock()
	if len(m.counts) < maxMemo {
		m.counts[sum] = n
	}
	m.mu.Unlock()
	return n
}
