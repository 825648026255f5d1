package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// backendCPU returns the CPU time process pid has used so far: the first
// field of /proc/PID/schedstat, its time on a CPU in nanoseconds. The
// process must be a PostgreSQL server's: a server on another machine has a
// backend whose PID may name an unrelated process here.
func backendCPU(pid uint32) (time.Duration, error) {
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return 0, err
	}
	if name := strings.TrimSpace(string(comm)); name != "postgres" {
		return 0, fmt.Errorf("process %d here is %q, not the server's backend", pid, name)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("/proc/%d/schedstat: empty", pid)
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/schedstat: %w", pid, err)
	}
	return time.Duration(ns), nil
}
