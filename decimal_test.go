package pgcache_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/decode"
	"github.com/pgcache/pgcache/internal/pgtest"
)

func TestDecimalMethods(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in         string
		float      float64
		floatErr   bool
		int        int64
		intErr     bool
		sign       int
		nan        bool
		pinf, ninf bool
	}{
		{in: "0", float: 0, int: 0, sign: 0},
		{in: "0.000", float: 0, int: 0, sign: 0},
		{in: "12.50", float: 12.5, intErr: true, sign: 1},
		{in: "12.00", float: 12, int: 12, sign: 1},
		{in: "-7", float: -7, int: -7, sign: -1},
		{in: "-0.5", float: -0.5, intErr: true, sign: -1},
		{in: "9223372036854775807", float: 9223372036854775807, int: math.MaxInt64, sign: 1},
		{in: "-9223372036854775808", float: -9223372036854775808, int: math.MinInt64, sign: -1},
		{in: "9223372036854775808", float: 9223372036854775808, intErr: true, sign: 1},
		{in: "0.1", float: 0.1, intErr: true, sign: 1},
		{in: "1" + strings.Repeat("0", 400), float: math.Inf(1), floatErr: true, intErr: true, sign: 1},
		{in: "-1" + strings.Repeat("0", 400), float: math.Inf(-1), floatErr: true, intErr: true, sign: -1},
		{in: "0." + strings.Repeat("0", 400) + "1", float: 0, intErr: true, sign: 1},
		{in: "NaN", float: math.NaN(), intErr: true, sign: 0, nan: true},
		{in: "Infinity", float: math.Inf(1), intErr: true, sign: 1, pinf: true},
		{in: "-Infinity", float: math.Inf(-1), intErr: true, sign: -1, ninf: true},
	} {
		t.Run(tt.in[:min(len(tt.in), 24)], func(t *testing.T) {
			d, err := pgcache.ParseDecimal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if d.String() != tt.in {
				t.Errorf("String() = %q", d.String())
			}
			f, err := d.Float64()
			if (err != nil) != tt.floatErr || !(f == tt.float || math.IsNaN(f) && math.IsNaN(tt.float)) {
				t.Errorf("Float64() = %v, %v; want %v (error %t)", f, err, tt.float, tt.floatErr)
			}
			// Float64 is what database/sql gives a *float64: strconv.ParseFloat.
			if pf, perr := strconv.ParseFloat(tt.in, 64); (perr != nil) != tt.floatErr || !(pf == f || math.IsNaN(pf) && math.IsNaN(f)) {
				t.Errorf("strconv.ParseFloat gives %v, %v; Float64 %v, %v", pf, perr, f, err)
			}
			i, err := d.Int64()
			if (err != nil) != tt.intErr || (err == nil && i != tt.int) {
				t.Errorf("Int64() = %d, %v; want %d (error %t)", i, err, tt.int, tt.intErr)
			}
			if err != nil && !errors.Is(err, decode.ErrRange) {
				t.Errorf("Int64() error %v is not ErrRange", err)
			}
			if d.Sign() != tt.sign || d.IsNaN() != tt.nan || d.IsInf(1) != tt.pinf || d.IsInf(-1) != tt.ninf || d.IsInf(0) != (tt.pinf || tt.ninf) {
				t.Errorf("Sign %d IsNaN %t IsInf(1) %t IsInf(-1) %t IsInf(0) %t", d.Sign(), d.IsNaN(), d.IsInf(1), d.IsInf(-1), d.IsInf(0))
			}
		})
	}
}

func TestDecimalZeroValue(t *testing.T) {
	t.Parallel()
	var d pgcache.Decimal
	if d.String() != "0" || d.Sign() != 0 || d.IsNaN() || d.IsInf(0) {
		t.Errorf("zero Decimal: %q sign %d", d.String(), d.Sign())
	}
	if f, err := d.Float64(); f != 0 || err != nil {
		t.Errorf("zero Decimal Float64: %v, %v", f, err)
	}
	if i, err := d.Int64(); i != 0 || err != nil {
		t.Errorf("zero Decimal Int64: %v, %v", i, err)
	}
	if a := d.Apd(nil); a.Cmp(apd.New(0, 0)) != 0 || a.Form != apd.Finite {
		t.Errorf("zero Decimal Apd: %s", a)
	}
	if d.Cmp(mustDecimal(t, "0.00")) != 0 {
		t.Error("zero Decimal != 0.00")
	}
	if b, _ := json.Marshal(d); string(b) != "0" {
		t.Errorf("zero Decimal JSON: %s", b)
	}
	if v, _ := d.Value(); v != "0" {
		t.Errorf("zero Decimal Value: %#v", v)
	}
}

func TestDecimalCmp(t *testing.T) {
	t.Parallel()
	// In PostgreSQL's order; each group holds equal values.
	ordered := [][]string{
		{"-Infinity"},
		{"-1" + strings.Repeat("0", 50)},
		{"-1.5", "-1.50", "-1.500000"},
		{"-0.0000000000000000000000000000000000000001"},
		{"0", "0.0", "0.00000000"},
		{"0.0000000000000000000000000000000000000001"},
		{"1.5", "1.50"},
		{"12"},
		{"340282366920938463463374607431768211456"},
		{"Infinity"},
		{"NaN"},
	}
	for i, gi := range ordered {
		for j, gj := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			for _, a := range gi {
				for _, b := range gj {
					if got := mustDecimal(t, a).Cmp(mustDecimal(t, b)); got != want {
						t.Errorf("Cmp(%s, %s) = %d, want %d", a, b, got, want)
					}
				}
			}
		}
	}
}

// TestDecimalApdIsACopy: Apd hands out a deep copy. For coefficients above
// 128 bits a struct copy of an apd.Decimal would share big.Int words with the
// shared value, so this is checked for a 40-digit value too, and for a value
// that came out of the cache.
func TestDecimalApdIsACopy(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"12.50", "1234567890123456789012345678901234567890", "-98765432109876543210987654321098765432.1098765"} {
		d := mustDecimal(t, s)
		want := d.Apd(nil)
		a := d.Apd(nil)
		if _, err := apd.BaseContext.Add(a, a, apd.New(1, 100)); err != nil {
			t.Fatal(err)
		}
		a.Coeff.SetInt64(7)
		a.Exponent = 3
		a.Negative = !a.Negative
		var dst apd.Decimal
		b := d.Apd(&dst)
		if b != &dst {
			t.Errorf("Apd(&dst) did not return dst")
		}
		b.Coeff.Mul(&b.Coeff, apd.NewBigInt(3))
		if d.String() != s || d.Apd(nil).Cmp(want) != 0 || d.Apd(nil).Text('f') != want.Text('f') {
			t.Errorf("%s changed to %s (Apd %s) after its copies were changed", s, d, d.Apd(nil))
		}
	}
}

func TestDecimalApdIsACopyOfCachedValue(t *testing.T) {
	dsn := pgtest.DSN(t)
	pc := openDB(t, pcDriver, dsn)
	pgcache.ResetCache()
	var ds [passes]pgcache.Decimal
	for i := range ds {
		if err := pc.QueryRow("select 4242.25::numeric").Scan(&ds[i]); err != nil {
			t.Fatal(err)
		}
	}
	a := ds[2].Apd(nil) // from the shared entry
	a.Coeff.SetInt64(1)
	a.Exponent = 10
	var again pgcache.Decimal
	if err := pc.QueryRow("select 4242.25::numeric").Scan(&again); err != nil {
		t.Fatal(err)
	}
	for _, d := range append(ds[:], again) {
		if d.String() != "4242.25" || d.Apd(nil).Text('f') != "4242.25" {
			t.Errorf("the cached 4242.25 reads as %s (Apd %s) after a copy was changed", d, d.Apd(nil))
		}
	}
}

func TestDecimalDecomposeAgreesWithApd(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"0", "0.00", "12.50", "-12.50", "1", "-1", "9223372036854775808", "18446744073709551616",
		"340282366920938463463374607431768211457", "-0.0000000000000000000000000000000000000001",
		strings.Repeat("9", 100), "0." + strings.Repeat("1", 200), "NaN", "Infinity", "-Infinity",
	} {
		d := mustDecimal(t, s)
		a, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		form, neg, coeff, exp := d.Decompose(nil)
		wform, wneg, wcoeff, wexp := a.Decompose(nil)
		if form != wform || neg != wneg || !bytes.Equal(coeff, wcoeff) || exp != wexp {
			t.Errorf("Decompose(%s) = %d %t %x %d; apd gives %d %t %x %d", s, form, neg, coeff, exp, wform, wneg, wcoeff, wexp)
		}
		// A buffer with room is used, and the result is composable.
		buf := make([]byte, 0, 64)
		_, _, coeff2, _ := d.Decompose(buf)
		if !bytes.Equal(coeff2, wcoeff) {
			t.Errorf("Decompose(%s) with a buffer: %x", s, coeff2)
		}
		var back apd.Decimal
		if err := back.Compose(d.Decompose(nil)); err != nil || back.Text('f') != a.Text('f') {
			t.Errorf("Compose(Decompose(%s)) = %s, %v", s, back.Text('f'), err)
		}
	}
}

func TestDecimalFromApd(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   *apd.Decimal
		want string
	}{
		{apd.New(1250, -2), "12.50"},
		{apd.New(-5, 3), "-5000"},
		{apd.New(0, -3), "0.000"},
		{apd.New(0, 3), "0"},
		{&apd.Decimal{Form: apd.NaN}, "NaN"},
		{&apd.Decimal{Form: apd.Infinite}, "Infinity"},
		{&apd.Decimal{Form: apd.Infinite, Negative: true}, "-Infinity"},
		{&apd.Decimal{Negative: true}, "0"}, // PostgreSQL has no negative zero
	} {
		d, err := pgcache.DecimalFromApd(tt.in)
		if err != nil || d.String() != tt.want {
			t.Errorf("DecimalFromApd(%s) = %s, %v; want %s", tt.in, d, err, tt.want)
		}
	}
	if _, err := pgcache.DecimalFromApd(&apd.Decimal{Form: apd.NaNSignaling}); err == nil {
		t.Error("DecimalFromApd(sNaN) succeeded")
	}
}

func TestDecimalJSON(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ text, json string }{
		{"12.50", "12.50"},
		{"-0.001", "-0.001"},
		{"0", "0"},
		{"123456789012345678901234567890.123456789", "123456789012345678901234567890.123456789"},
		{"NaN", `"NaN"`},
		{"Infinity", `"Infinity"`},
		{"-Infinity", `"-Infinity"`},
	} {
		d := mustDecimal(t, tt.text)
		b, err := json.Marshal(d)
		if err != nil || string(b) != tt.json {
			t.Errorf("Marshal(%s) = %s, %v; want %s", tt.text, b, err, tt.json)
		}
		var back pgcache.Decimal
		if err := json.Unmarshal(b, &back); err != nil || back.String() != tt.text {
			t.Errorf("Unmarshal(%s) = %s, %v", b, back, err)
		}
		// The text form round-trips too.
		tb, err := d.MarshalText()
		if err != nil || string(tb) != tt.text {
			t.Errorf("MarshalText(%s) = %s, %v", tt.text, tb, err)
		}
		if err := back.UnmarshalText(tb); err != nil || back.String() != tt.text {
			t.Errorf("UnmarshalText(%s) = %s, %v", tb, back, err)
		}
	}

	// A number given as a JSON string, exponents, and null.
	type doc struct {
		A pgcache.Decimal
		B pgcache.Decimal
		C pgcache.NullDecimal
		D pgcache.NullDecimal
		E *pgcache.Decimal
	}
	var v doc
	v.B = mustDecimal(t, "7")
	if err := json.Unmarshal([]byte(`{"A": "1.50e1", "B": null, "C": 2.5, "D": null, "E": 1e-2}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.A.String() != "15.0" || v.B.String() != "7" || !v.C.Valid || v.C.Decimal.String() != "2.5" || v.D.Valid || v.E == nil || v.E.String() != "0.01" {
		t.Errorf("decoded %+v", v)
	}
	b, err := json.Marshal(v)
	if err != nil || string(b) != `{"A":15.0,"B":7,"C":2.5,"D":null,"E":0.01}` {
		t.Errorf("Marshal = %s, %v", b, err)
	}
	for _, bad := range []string{`"abc"`, `true`, `"1.5`, `{}`, `[1]`, `"1e"`} {
		var d pgcache.Decimal
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("Unmarshal(%s) succeeded: %s", bad, d)
		}
	}
}

func TestDecimalScan(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		src  any
		want string
	}{
		{"12.50", "12.50"},
		{"-0.001", "-0.001"},
		{"NaN", "NaN"},
		{"-Infinity", "-Infinity"},
		{" +1.50e1 ", "15.0"}, // text from elsewhere is read as numeric_in reads it
		{"007", "7"},
		{[]byte("3.25"), "3.25"},
		{int64(-42), "-42"},
		{int64(math.MinInt64), "-9223372036854775808"},
		{1.5, "1.5"},
		{0.1, "0.1"},
		{-2.0, "-2"},
		{1e21, "1000000000000000000000"},
		{math.Inf(-1), "-Infinity"},
		{math.NaN(), "NaN"},
	} {
		var d pgcache.Decimal
		if err := d.Scan(tt.src); err != nil || d.String() != tt.want {
			t.Errorf("Scan(%#v) = %s, %v; want %s", tt.src, d, err, tt.want)
		}
		var nd pgcache.NullDecimal
		if err := nd.Scan(tt.src); err != nil || !nd.Valid || nd.Decimal.String() != tt.want {
			t.Errorf("NullDecimal.Scan(%#v) = %+v, %v; want %s", tt.src, nd, err, tt.want)
		}
	}
	for _, src := range []any{"abc", "", "1.2.3", []byte("x"), true, struct{}{}} {
		d := mustDecimal(t, "5")
		if err := d.Scan(src); err == nil {
			t.Errorf("Scan(%#v) succeeded: %s", src, d)
		} else if d.String() != "5" {
			t.Errorf("a failed Scan(%#v) changed the Decimal to %s", src, d)
		}
	}
	var d pgcache.Decimal
	err := d.Scan(nil)
	if err == nil || !strings.Contains(err.Error(), "NullDecimal") {
		t.Errorf("Scan(nil) = %v; want an error pointing to NullDecimal", err)
	}
	nd := pgcache.NullDecimal{Decimal: mustDecimal(t, "1"), Valid: true}
	if err := nd.Scan(nil); err != nil || nd.Valid || nd.Decimal.String() != "0" {
		t.Errorf("NullDecimal.Scan(nil) = %+v, %v", nd, err)
	}
}

func TestDecimalValue(t *testing.T) {
	t.Parallel()
	if v, err := mustDecimal(t, "-12.50").Value(); v != "-12.50" || err != nil {
		t.Errorf("Value() = %#v, %v", v, err)
	}
	if v, err := (pgcache.NullDecimal{}).Value(); v != nil || err != nil {
		t.Errorf("invalid NullDecimal Value() = %#v, %v", v, err)
	}
	if v, err := (pgcache.NullDecimal{Decimal: mustDecimal(t, "NaN"), Valid: true}).Value(); v != "NaN" || err != nil {
		t.Errorf("NullDecimal Value() = %#v, %v", v, err)
	}
	if b, _ := json.Marshal(pgcache.NullDecimal{}); string(b) != "null" {
		t.Errorf("invalid NullDecimal JSON: %s", b)
	}
	var nd pgcache.NullDecimal
	if err := json.Unmarshal([]byte(" null "), &nd); err != nil || nd.Valid {
		t.Errorf("NullDecimal from null: %+v, %v", nd, err)
	}
}

// TestParseDecimalAgreesWithPostgreSQL: ParseDecimal accepts what the
// server's numeric input accepts and gives the text the server prints.
func TestParseDecimalAgreesWithPostgreSQL(t *testing.T) {
	t.Parallel()
	std := openDB(t, stdDriver, pgtest.DSN(t))
	inputs := []string{
		"0", "-0", "+0", "-0.00", "00", "1.50e1", " +3 ", "  12  ", "\t5\n", "nan", "NaN", "NAN", " nan ",
		"inf", "-inf", "+inf", "Infinity", "+Infinity", "-INFINITY", "infinity ",
		".5", "5.", "-.5", "+.5e1", "0001.2300", "1e-3", "-1.5E+3", "1E3", "1e 3", "1e+03",
		"1e1000", "1e-1000", "1e-16383", "1e-16384", "12345678901234567890123456789012345678901234567890",
		"0.000000000000000000000000000000000000000000001",
		"", " ", "abc", "1e", "1e+", "e5", ".", "+", "-", "1.2.3", "--1", "1 2", "1_000", "0x10",
		"Infinityx", "nan1", "-nan", "+-1", "1e-", "١", "1,5",
	}
	for _, in := range inputs {
		var server sql.NullString
		serverErr := std.QueryRow("select $1::numeric::text", in).Scan(&server)
		d, err := pgcache.ParseDecimal(in)
		switch {
		case serverErr != nil && err != nil:
		case serverErr != nil:
			t.Errorf("ParseDecimal(%q) = %s; the server rejects it: %v", in, d, serverErr)
		case err != nil:
			t.Errorf("ParseDecimal(%q): %v; the server reads %s", in, err, server.String)
		case d.String() != server.String:
			t.Errorf("ParseDecimal(%q) = %s; the server reads %s", in, d, server.String)
		}
	}
}

// TestDecimalArgs writes Decimals back to PostgreSQL as query arguments
// through both drivers and reads them back.
func TestDecimalArgs(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	values := []string{"12.50", "-0.001", "0", "NaN", "Infinity", "-Infinity", strings.Repeat("9", 300) + ".5"}
	for _, name := range []string{stdDriver, pcDriver} {
		t.Run(name, func(t *testing.T) {
			db := openDB(t, name, dsn)
			table := "pgc_decimal_args_" + name
			mustExec(t, db, "drop table if exists "+table+"; create table "+table+" (id int, n numeric)")
			for i, s := range values {
				mustExec(t, db, "insert into "+table+" values ($1, $2)", i, mustDecimal(t, s))
			}
			mustExec(t, db, "insert into "+table+" values ($1, $2)", len(values), pgcache.NullDecimal{})
			mustExec(t, db, "insert into "+table+" values ($1, $2)", len(values)+1, pgcache.NullDecimal{Decimal: mustDecimal(t, "3.5"), Valid: true})
			want := append(values, "NULL", "3.5")
			rows, err := db.Query("select n from " + table + " order by id")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			i := 0
			for ; rows.Next(); i++ {
				var d pgcache.NullDecimal
				if err := rows.Scan(&d); err != nil {
					t.Fatal(err)
				}
				got := "NULL"
				if d.Valid {
					got = d.Decimal.String()
				}
				if got != want[i] {
					t.Errorf("row %d: %s, want %s", i, got, want[i])
				}
			}
			if err := rows.Err(); err != nil || i != len(want) {
				t.Errorf("%d rows, %v", i, err)
			}
			// Equal values of different scales compare equal in SQL too.
			var eq bool
			if err := db.QueryRow("select $1::numeric = $2::numeric", mustDecimal(t, "1.5"), mustDecimal(t, "1.500")).Scan(&eq); err != nil || !eq {
				t.Errorf("1.5 = 1.500 on the server: %t, %v", eq, err)
			}
		})
	}
}
