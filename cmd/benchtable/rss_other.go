//go:build !unix

package main

import "os"

// peakRSSKiB is 0 where the system gives no rusage: the tables then show no peak.
func peakRSSKiB(*os.ProcessState) int64 { return 0 }
