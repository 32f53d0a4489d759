//go:build amd64

package frame

import "golang.org/x/sys/cpu"

// plainRunVectors says whether the processor scans strings 32 bytes at a time
// (AVX2): set once, from what it reports.
var plainRunVectors = cpu.X86.HasAVX2

// plainRun is how far scanString may skip from the start of b, which lies
// inside a string, without looking at the bytes itself: over plain bytes (none a
// quote, a backslash or a control character) in blocks of 32, and over valid
// escapes (\n, \", \u00e9 ...), 64 bytes at a time where they are dense; it
// stops at a byte scanString must look at, at the backslash of an escape it
// leaves to scanString, or where fewer than 32 bytes are left. escaped says it
// skipped an escape. 0 where the processor has no such instructions: the caller
// looks at the bytes eight at a time.
func plainRun(b []byte) (n int, escaped bool) {
	if !plainRunVectors {
		return 0, false
	}
	return plainRunAVX2(b)
}

// plainRunAVX2 is plainRun with AVX2 (plainrun_amd64.s).
//
//go:noescape
func plainRunAVX2(b []byte) (n int, escaped bool)
