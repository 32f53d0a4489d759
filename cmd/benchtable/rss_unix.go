//go:build unix && !darwin

package main

import (
	"os"
	"syscall"
)

// peakRSSKiB is a finished child's peak RSS in KiB (rusage maxrss, which Linux
// and the BSDs give in KiB).
func peakRSSKiB(p *os.ProcessState) int64 {
	if ru, ok := p.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss)
	}
	return 0
}
