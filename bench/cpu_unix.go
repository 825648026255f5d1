//go:build unix

package bench

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time the process has used so far, user and system,
// summed over all its threads (getrusage RUSAGE_SELF).
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// UserCPUTime is CPUTime's user part: the process's own code, without the
// kernel's work on its behalf (the socket reads and writes of a round trip,
// the same whichever driver makes them).
func UserCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano())
}
