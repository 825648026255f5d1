package decode

import (
	"errors"
	"strconv"
)

// Sentinel causes wrapped by [*Error]. Test for them with [errors.Is].
var (
	// ErrSyntax means the text is not in the form PostgreSQL's output function produces.
	ErrSyntax = errors.New("invalid syntax")
	// ErrRange means the text is well formed but its value cannot be represented
	// (for example an exponent beyond what apd allows).
	ErrRange = errors.New("value out of range")
)

// maxQuoted bounds how much of an offending text an error message repeats, so a
// malformed 1 MB hstore does not become a 1 MB error string.
const maxQuoted = 64

// Error reports a text that could not be decoded. It is shaped like
// [strconv.NumError]: Type names the PostgreSQL type, Text is the input, Pos is
// the byte offset where decoding failed (-1 when no single position is at fault)
// and Err is [ErrSyntax] or [ErrRange]. Detail, when set, says what was expected.
type Error struct {
	Type   string // "numeric" or "hstore"
	Text   string // the whole input; Error() quotes at most a window of it
	Pos    int    // byte offset of the problem, or -1
	Err    error  // ErrSyntax or ErrRange
	Detail string // optional: what was expected at Pos
}

// Error formats as, for example,
//
//	decode numeric "1e+": invalid syntax at byte 1: unexpected 'e'
//
// Long texts are shown as a window around Pos with "..." marking the cuts.
func (e *Error) Error() string {
	msg := "decode " + e.Type + " " + quoteWindow(e.Text, e.Pos) + ": " + e.Err.Error()
	if e.Pos >= 0 {
		msg += " at byte " + strconv.Itoa(e.Pos)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap returns the sentinel cause, so errors.Is(err, ErrSyntax) works.
func (e *Error) Unwrap() error { return e.Err }

// quoteWindow quotes s, or when s is long, at most maxQuoted bytes of it
// centred on pos.
func quoteWindow(s string, pos int) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	start := max(0, min(pos, len(s))-maxQuoted/2)
	end := min(len(s), start+maxQuoted)
	start = max(0, end-maxQuoted)
	q := strconv.Quote(s[start:end])
	if start > 0 {
		q = "..." + q
	}
	if end < len(s) {
		q += "..."
	}
	return q
}

// syntaxError builds the common case.
func syntaxError(typ, text string, pos int, detail string) *Error {
	return &Error{Type: typ, Text: text, Pos: pos, Err: ErrSyntax, Detail: detail}
}
