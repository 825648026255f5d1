//go:build !linux

package bench

import (
	"errors"
	"time"
)

// backendCPU fails: the server's CPU time is read from Linux's /proc.
func backendCPU(pid uint32) (time.Duration, error) {
	return 0, errors.New("needs Linux's /proc/PID/schedstat")
}
