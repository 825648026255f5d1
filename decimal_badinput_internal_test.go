package pgcache

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Decimal.Scan of what no driver should hand it (Hstore.Scan's twin is in
// hstore_badinput_internal_test.go), and Scans into nil receivers: errors
// naming the input, never a panic.

// TestDecimalScanBadInput: Decimal.Scan of what a driver could hand it fails
// with an error that quotes the text or names the type, never a panic, and
// leaves the destination as it was.
func TestDecimalScanBadInput(t *testing.T) {
	for _, src := range []any{
		"abc", "", " ", "1e", "--1", "1.2.3", "\x00", "1\x00", "\xff", "0x10", "١٢",
		[]byte("abc"), []byte{}, []byte(nil),
		true, time.Unix(0, 0), []int{1}, struct{}{}, int32(5), uint64(5),
	} {
		t.Run(fmt.Sprintf("%T %v", src, src), func(t *testing.T) {
			d := Decimal{}
			before := d
			err := d.Scan(src)
			if err == nil {
				t.Fatalf("Scan(%#v) = %s, want an error", src, d)
			}
			checkNamesInput(t, err, src)
			if d != before {
				t.Errorf("Scan(%#v) failed but changed the destination to %s", src, d)
			}
		})
	}
	if err := new(Decimal).Scan(nil); err == nil {
		t.Error("Scan(nil) into a Decimal succeeded; NULL needs NullDecimal")
	}
	// Floats: NaN and the infinities are numeric values; every other float
	// must come back exactly.
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e308, 5e-324, 0.1} {
		var d Decimal
		if err := d.Scan(f); err != nil {
			t.Errorf("Scan(%v): %v", f, err)
			continue
		}
		got, err := d.Float64()
		if err != nil || !(got == f || math.IsNaN(f) && math.IsNaN(got)) {
			t.Errorf("Scan(%v).Float64() = %v, %v", f, got, err)
		}
	}
}

// TestScanNilReceivers: a Scan into a nil *Decimal, *NullDecimal, *Hstore or
// *NullHstore, which database/sql before Go 1.27 passes on to the method, is
// an error naming the type, never a panic, for every kind of source.
func TestScanNilReceivers(t *testing.T) {
	for _, src := range []any{"1.5", []byte("1.5"), `"a"=>"1"`, int64(1), 1.5, nil, true} {
		for _, c := range []struct {
			name string
			scan func(any) error
		}{
			{"*pgcache.Decimal", (*Decimal)(nil).Scan},
			{"*pgcache.NullDecimal", (*NullDecimal)(nil).Scan},
			{"*pgcache.Hstore", (*Hstore)(nil).Scan},
			{"*pgcache.NullHstore", (*NullHstore)(nil).Scan},
		} {
			err := c.scan(src)
			if err == nil || !strings.Contains(err.Error(), "nil "+c.name) {
				t.Errorf("Scan(%#v) into a nil %s: %v, want an error naming the nil %[2]s", src, c.name, err)
			}
		}
	}
}

// checkNamesInput fails t unless err names the scanned value: the text
// quoted (or its start, for a long one), or the Go type of anything else.
func checkNamesInput(t *testing.T, err error, src any) {
	t.Helper()
	msg := err.Error()
	if msg == "" {
		t.Fatal("empty error message")
	}
	var text string
	switch v := src.(type) {
	case string:
		text = v
	case []byte:
		text = string(v)
	default:
		if !strings.Contains(msg, fmt.Sprintf("%T", src)) {
			t.Errorf("error %q does not name the type %T", msg, src)
		}
		return
	}
	q := strconv.Quote(text)
	if strings.Contains(msg, q) || strings.Contains(msg, text) {
		return
	}
	// A long text may be quoted in part, around the error: some 16 bytes of
	// it, as %q writes them, must be there.
	inner := q[1 : len(q)-1]
	for i := 0; i+16 <= len(inner); i++ {
		if len(text) > 64 && strings.Contains(msg, inner[i:i+16]) {
			return
		}
	}
	t.Errorf("error %q does not quote the text %q", msg, text)
}
