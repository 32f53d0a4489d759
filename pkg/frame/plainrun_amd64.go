//go:build amd64

package frame

import "golang.org/x/sys/cpu"

// plainRunVectors says whether the processor scans strings 32 bytes at a time
// (AVX2): set once, from what it reports.
var plainRunVectors = cpu.X86.HasAVX2

// plainRun is the length of the run of plain string bytes (none a quote, a
// backslash or a control character) at the start of b that it could skip in
// blocks of 32: a multiple of 32, or the offset of the first byte that is not
// plain. 0 where the processor has no such instructions: the caller looks at the
// bytes eight at a time.
func plainRun(b []byte) int {
	if !plainRunVectors {
		return 0
	}
	return plainRunAVX2(b)
}

// plainRunAVX2 is plainRun with AVX2 (plainrun_amd64.s).
//
//go:noescape
func plainRunAVX2(b []byte) int
