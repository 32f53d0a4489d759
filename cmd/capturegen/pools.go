package main

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
)

// The payload profiles cut their text and base64 out of two fixed pools, built once
// from a seed: a payload is a slice of a pool at a random place, so that writing a GiB
// costs little more than copying it, and no payload is the same as the one before.

// textPool is log-like text, already escaped for a JSON string: escaped newlines,
// quotes, tabs and backslashes, accented letters and emoji (raw UTF-8).
type textPool []byte

const textPoolSize = 6 << 20

func newTextPool(seed uint64) textPool {
	rng := rand.New(rand.NewPCG(seed, 0x7465_7874))
	components := []string{"billing", "archive", "worker-3", "scheduler", "ingest", "auth"}
	levels := []string{"INFO ", "INFO ", "INFO ", "DEBUG", "WARN ", "ERROR"}
	people := []string{"José Müller", "Zoë Ångström", "Renée Dubois", "Øystein Lund", "Ana Martínez", "François Ørsted"}
	ts := int64(1_764_460_800_000) // 2025-11-30T00:00:00Z in ms
	var raw []byte
	pool := make([]byte, 0, textPoolSize+4096)
	for len(pool) < textPoolSize {
		raw = raw[:0]
		ts += int64(rng.IntN(5000))
		raw = fmt.Appendf(raw, "%d.%03d %s [%s] ", ts/1000, ts%1000, levels[rng.IntN(len(levels))], components[rng.IntN(len(components))])
		n := rng.IntN(100_000)
		switch rng.IntN(9) {
		case 0:
			raw = fmt.Appendf(raw, `GET /api/v2/invoices/INV-2025-%04d 200 %dms user="%s"`, n%10000, rng.IntN(900), people[rng.IntN(len(people))])
		case 1:
			raw = fmt.Appendf(raw, `cache miss key="tenant:%d/report:%d" → recomputing`, rng.IntN(64), n)
		case 2:
			raw = fmt.Appendf(raw, "Überweisung für Müller & Söhne (Zürich) verbucht: %d,%02d €", n, rng.IntN(100))
		case 3:
			raw = fmt.Appendf(raw, "deploy ✅ build #%d finished in %ds 🚀", n, rng.IntN(600))
		case 4:
			raw = fmt.Appendf(raw, "java.lang.IllegalStateException: batch %d rejected\n\tat com.example.archive.Worker.run(Worker.java:%d)\n\tat java.base/java.lang.Thread.run(Thread.java:1583)", n, rng.IntN(400))
		case 5:
			raw = fmt.Appendf(raw, `warning: path "C:\Users\support\reports\q%d.csv" not found`, rng.IntN(4)+1)
		case 6:
			raw = fmt.Appendf(raw, "résumé_%d.pdf uploaded by %s (naïve check passed) 📦", n, people[rng.IntN(len(people))])
		case 7:
			raw = fmt.Appendf(raw, `event {"type":"order.created","id":%d,"total":%d.%02d,"currency":"EUR","note":"déjà vu"}`, n, rng.IntN(5000), rng.IntN(100))
		default:
			raw = fmt.Appendf(raw, "row %d\tstatus=ok\tlatency=%dms\tregion=eu-west-1\t日本語 ok", n, rng.IntN(300))
		}
		raw = append(raw, '\n')
		pool = appendEscaped(pool, raw)
	}
	return pool
}

// appendText appends about n bytes of the pool (escaped text), cut where no escape
// sequence or UTF-8 character is split.
func (p textPool) appendText(dst []byte, rng *rand.Rand, n int) []byte {
	for n > 0 {
		k := min(n, len(p)/2)
		start := p.cut(rng.IntN(len(p) - k))
		end := p.cut(start + k)
		if end <= start {
			end = p.cut(start + k + 8)
		}
		dst = append(dst, p[start:end]...)
		n -= end - start
	}
	return dst
}

// cut moves i back to the nearest place where the escaped text may be cut.
func (p textPool) cut(i int) int {
	if i >= len(p) {
		return len(p)
	}
	for i > 0 && p[i]&0xC0 == 0x80 { // inside a UTF-8 character
		i--
	}
	slashes := 0
	for j := i - 1; j >= 0 && p[j] == '\\'; j-- {
		slashes++
	}
	if slashes%2 == 1 { // between a backslash and the character it escapes
		i--
	}
	return i
}

// appendEscaped appends s as the inside of a JSON string.
func appendEscaped(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// b64Pool is standard base64 (no padding inside) of random bytes.
type b64Pool []byte

const b64PoolBytes = 6 << 20 // 8 MiB of base64

func newB64Pool(seed uint64) b64Pool {
	rng := rand.New(rand.NewPCG(seed, 0x6236_34))
	raw := make([]byte, b64PoolBytes)
	for i := 0; i < len(raw); i += 8 {
		binary.LittleEndian.PutUint64(raw[i:], rng.Uint64())
	}
	return base64.StdEncoding.AppendEncode(nil, raw)
}

// File headers that make a blob look like what its mimeType says; each is a
// multiple of 3 bytes, so that its base64 joins the pool's without padding.
var (
	pngHeader = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x04\x00\x00\x00\x03\x00\x08\x06\x00\x00\x00\x8a\x1e\x2b\x5c") // 33 bytes
	pdfHeader = []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")                                                                           // 15 bytes
)

// appendBase64 appends about n characters of valid base64: header's, then the pool's.
func (p b64Pool) appendBase64(dst []byte, rng *rand.Rand, header []byte, n int) []byte {
	dst = base64.StdEncoding.AppendEncode(dst, header)
	n -= base64.StdEncoding.EncodedLen(len(header))
	n -= n % 4
	for n > 0 {
		k := min(n, len(p)/2)
		start := rng.IntN((len(p)-k)/4) * 4
		dst = append(dst, p[start:start+k]...)
		n -= k
	}
	return dst
}

// logUniform returns a size between lo and hi whose logarithm is uniform: as many
// payloads between 100 B and 1 KB as between 10 KB and 100 KB.
func logUniform(rng *rand.Rand, lo, hi int) int {
	l, h := math.Log(float64(lo)), math.Log(float64(hi))
	return int(math.Exp(l + rng.Float64()*(h-l)))
}
