package bench

import (
	"os"
	"strings"
	"testing"
)

// TestBackendCPUNotPostgres: a PID whose process is not a PostgreSQL
// backend (a server on another machine) is refused, not measured.
func TestBackendCPUNotPostgres(t *testing.T) {
	_, err := backendCPU(uint32(os.Getpid()))
	if err == nil || !strings.Contains(err.Error(), "not the server's backend") {
		t.Fatalf("backendCPU(own PID) err = %v, want a refusal", err)
	}
}
