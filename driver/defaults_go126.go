//go:build !go1.27

package driver

// defaultTypes is DefaultTypes on Go 1.26: every kind. database/sql converts
// each driver value itself, so the uncached path boxes every value into a
// driver.Value (and copies a text into a string first); a hit hands out the
// value boxed at admission.
const defaultTypes = AllTypes
