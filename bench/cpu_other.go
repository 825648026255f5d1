//go:build !unix

package bench

import "time"

// CPUTime returns 0: there is no getrusage here, and CPU figures read 0.
func CPUTime() time.Duration { return 0 }

// UserCPUTime returns 0, as CPUTime does.
func UserCPUTime() time.Duration { return 0 }
