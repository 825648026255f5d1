//go:build go1.27

package pgcache

import (
	"fmt"
	"testing"
)

// TestHasNull: hasNull finds a NULL at every position of rows of 0 to 11
// values, in its steps of four and in their tail, and none where there is
// none (an empty value is not NULL).
func TestHasNull(t *testing.T) {
	for n := range 12 {
		row := make([][]byte, n)
		for i := range row {
			row[i] = []byte{}
		}
		if hasNull(row) {
			t.Errorf("%d values, none NULL: hasNull says there is one", n)
		}
		for null := range n {
			row[null] = nil
			if !hasNull(row) {
				t.Errorf("%d values, NULL at %d: hasNull says there is none", n, null)
			}
			row[null] = []byte(fmt.Sprint(null))
		}
	}
}
