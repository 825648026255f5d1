package pgcache

import "github.com/pgcache/pgcache/internal/backoff"

// The reuse back-off's sizes, for the tests of package pgcache_test: they
// assert what the back-off does through Stats in terms of these, so that a
// change to a window or a skip is made in internal/backoff alone.
const (
	ProbeWindow   = backoff.ProbeWindow   // lookups in a column's full window
	ReprobeWindow = backoff.ReprobeWindow // lookups in a probe after a skip
	EarlyWindow   = backoff.EarlyWindow   // lookups in the early part of a window
	SkipFirst     = backoff.SkipFirst     // rows in a column's first skip
	WarmWindows   = backoff.WarmWindows   // windows judged before churnRatio applies
)
