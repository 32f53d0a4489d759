package main

import (
	"os"
	"syscall"
)

// peakRSSKiB is a finished child's peak RSS in KiB (rusage maxrss, which macOS
// gives in bytes).
func peakRSSKiB(p *os.ProcessState) int64 {
	if ru, ok := p.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss) >> 10
	}
	return 0
}
