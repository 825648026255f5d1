//go:build !go1.27

package driver

// defaultTypes is DefaultTypes on Go 1.26: the text kinds and the date and
// time kinds. database/sql converts each driver value itself, so an
// uncached value is decoded and boxed into a driver.Value (in fewer
// allocations than Go's own boxing: pgcache's internal/box), and a hit hands
// out the value boxed at admission. A hit costs less CPU than a text's copy
// and box and than a date's or timestamp's box, a time.Time whose location
// pointer the collector follows; an integer's or a float's decoding and box
// cost about what a hit costs, and fewer instructions, so int2, int4, int8
// and float8 are left out (bench/README.md, "The default kinds per
// toolchain").
const defaultTypes = TextTypes | TypeSet(TypeDate|TypeTimestamp|TypeTimestamptz)
