//go:build !go1.27

package pgcache

// RowsColumnScanner: database/sql hands destinations to ScanColumn.
const RowsColumnScanner = false
