//go:build go1.27

package bench

// rowsColumnScanner reports whether database/sql hands destinations to the
// driver (driver.RowsColumnScanner, Go 1.27+).
const rowsColumnScanner = true
