//go:build race

package pgcache

// raceEnabled: the race detector slows the long simulations (about 10×),
// which then run fewer cases.
const raceEnabled = true
