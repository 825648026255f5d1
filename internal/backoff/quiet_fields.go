//go:build !amd64 && !arm64

package backoff

// Quiet reports whether the column is looked up (it is not in a skip) and
// its next lookup cannot close its window (see backoff.go). It tests the
// two fields: a 64-bit load of both (quiet_word.go) may fault, or find
// them in the other order, on other architectures.
func (t *Tracker) Quiet() bool { return t.quietFields() }
