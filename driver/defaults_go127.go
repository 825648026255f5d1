//go:build go1.27

package driver

// defaultTypes is DefaultTypes on Go 1.27 and later: the text kinds. There
// database/sql hands each destination to the driver, and pgcache decodes an
// integer, a float, a date or a timestamp from its wire bytes straight into
// it, with no box: cheaper than a lookup. A text's wire route still
// allocates the string, which a hit saves.
const defaultTypes = TextTypes
