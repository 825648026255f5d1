//go:build race

package pgcache_test

// heapRows is TestHeapFlatStreaming's row count under -race. Measured on 2
// shared CPUs: 10M rows took 39 s under -race (6.8 s without), too close to
// CI's 60 s budget per test on a busy machine; 1M took 3.8 s. The full 10M
// runs in every build without -race (heap_norace_test.go).
const heapRows = 2_000_000
