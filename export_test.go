package pgcache

// The reuse back-off's sizes, for the tests of package pgcache_test: they
// assert what the back-off does through Stats in terms of these, so that a
// change to a window or a skip is made in backoff.go alone.
const (
	ProbeWindow   = probeWindow   // lookups in a column's full window
	ReprobeWindow = reprobeWindow // lookups in a probe after a skip
	EarlyWindow   = earlyWindow   // lookups in the early part of a window
	SkipFirst     = skipFirst     // rows in a column's first skip
	WarmWindows   = warmWindows   // windows judged before churnRatio applies
)
