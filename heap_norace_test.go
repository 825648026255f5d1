//go:build !race

package pgcache_test

// heapRows is TestHeapFlatStreaming's row count without -race: 10M rows.
const heapRows = 10_000_000
