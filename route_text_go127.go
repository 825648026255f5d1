//go:build go1.27

package pgcache

import (
	"database/sql"
	sqldriver "database/sql/driver"
	"strconv"
	"unsafe"

	"github.com/pgcache/pgcache/internal/box"
)

// The text routes: a string driver value. A text without boxed is a view of
// the wire bytes: *string, *sql.NullString and *any get a copy of it, as
// stdlib's string(raw) makes (*any's boxed in one allocation, not two);
// an entry's text they share. The numbers and
// booleans are the ones database/sql parses the string into.

// copyText copies s as stdlib's string(raw) does: through the runtime's
// conversion, which gives a one-byte text (a char(1) flag, say) a shared
// static string and allocates nothing for it, where strings.Clone would.
func copyText(s string) string { return string(unsafe.Slice(unsafe.StringData(s), len(s))) }

func textString(_ sqldriver.ScanContext, s string, boxed sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	if boxed == nil {
		s = copyText(s)
	}
	*(*string)(p) = s
	return true, nil
}

func textNullString(_ sqldriver.ScanContext, s string, boxed sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	if boxed == nil {
		s = copyText(s)
	}
	*(*sql.NullString)(p) = sql.NullString{String: s, Valid: true}
	return true, nil
}

func textAny(_ sqldriver.ScanContext, s string, boxed sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	if boxed == nil {
		// A copy in one allocation, string header and bytes (internal/box).
		boxed = box.String(unsafe.Slice(unsafe.StringData(s), len(s)))
	}
	*(*any)(p) = boxed
	return true, nil
}

func textBytes(_ sqldriver.ScanContext, s string, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*[]byte)(p) = []byte(s) // the caller owns it: a fresh copy, as database/sql makes
	return true, nil
}

// textRawBytes boxes a view of the wire bytes (one allocation): database/sql
// copies the text into its buffer at once.
func textRawBytes(scanCtx sqldriver.ScanContext, s string, boxed sqldriver.Value, p unsafe.Pointer) (bool, error) {
	return rawBytes(scanCtx, boxOr(boxed, s), p)
}

func textSigned[T signed](_ sqldriver.ScanContext, s string, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	i, err := strconv.ParseInt(s, 10, 64)
	return err == nil && setSigned[T](i, p), nil
}

func textNullSigned[T int64 | int32 | int16](_ sqldriver.ScanContext, s string, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	i, err := strconv.ParseInt(s, 10, 64)
	return err == nil && setNullSigned[T](i, p), nil
}

func textFloat64(_ sqldriver.ScanContext, s string, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || p == nil {
		return false, nil
	}
	*(*float64)(p) = f
	return true, nil
}

func textNullFloat64(_ sqldriver.ScanContext, s string, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || p == nil {
		return false, nil
	}
	*(*sql.NullFloat64)(p) = sql.NullFloat64{Float64: f, Valid: true}
	return true, nil
}

func textBool(_ sqldriver.ScanContext, s string, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	b, err := strconv.ParseBool(s)
	if err != nil || p == nil {
		return false, nil
	}
	*(*bool)(p) = b
	return true, nil
}
