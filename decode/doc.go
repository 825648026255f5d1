// Package decode turns the text PostgreSQL sends for numeric and hstore values
// into immutable Go values. It does no I/O and no caching: every function is a
// pure function of its input, so the results may be shared between goroutines
// and cached by the caller.
//
// The parsers are strict. They accept exactly what PostgreSQL's output
// functions (numeric_out, hstore_out) produce and reject everything else with an
// [*Error] that quotes the input and names the byte offset at fault.
package decode
