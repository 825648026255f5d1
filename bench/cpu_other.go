//go:build !unix

package bench

import "time"

// CPUTime returns 0: there is no getrusage here, and CPU figures read 0.
func CPUTime() time.Duration { return 0 }
