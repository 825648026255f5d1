package pgcache

import (
	"testing"

	"github.com/pgcache/pgcache/internal/backoff"
)

// TestBackoffMemoryFirstWindow: a column new to the back-off's memory whose
// first result set ends exactly one window (here, fails it and starts a
// skip) leaves its judgement in the memory at Close. Before the fix its
// Rows marked the column as one window ahead of its tracker, the window
// brought them level, Close saw no judgement to write, and the next result
// set of the column, on another connection, learned it all again.
func TestBackoffMemoryFirstWindow(t *testing.T) {
	c, done := rawConn(t, "")
	defer done()
	ResetCache()
	r := query(t, c, "select (i * 1.001)::numeric from generate_series(1, 6000) i")
	if got := r.cached[0].reuse.WindowsEnded(); got != 1 {
		t.Fatalf("the result set ended %d windows, want 1", got)
	}
	if cols, skipping := backoff.Stats(); cols != 1 || skipping != 1 {
		t.Errorf("after the result set: the memory holds %d columns, %d skipping; want 1 and 1", cols, skipping)
	}
}
