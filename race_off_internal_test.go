//go:build !race

package pgcache

// raceEnabled: see race_on_internal_test.go.
const raceEnabled = false
