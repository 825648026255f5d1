package pgcache

import (
	"fmt"
	"testing"
	"time"
)

// TestHstoreScanBadInput is TestDecimalScanBadInput for Hstore.
func TestHstoreScanBadInput(t *testing.T) {
	srcs := []any{true, 5, int64(5), 1.5, time.Unix(0, 0), map[string]string{"a": "b"}}
	for _, s := range badHstoreTexts {
		if s == " " {
			continue // whitespace is the empty hstore, as hstore_in reads it
		}
		srcs = append(srcs, s)
	}
	srcs = append(srcs, []byte(`"a"=>`))
	for _, src := range srcs {
		name := fmt.Sprintf("%T %v", src, src)
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			var h Hstore
			err := h.Scan(src)
			if err == nil {
				t.Fatalf("Scan(%#v) = %s, want an error", src, h)
			}
			checkNamesInput(t, err, src)
			if h.Len() != 0 {
				t.Errorf("Scan(%#v) failed but filled the destination: %s", src, h)
			}
		})
	}
	if err := new(Hstore).Scan(nil); err == nil {
		t.Error("Scan(nil) into an Hstore succeeded; NULL needs NullHstore")
	}
}
