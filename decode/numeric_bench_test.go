package decode_test

import (
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/shopspring/decimal"

	"github.com/pgcache/pgcache/decode"
)

// numericBenchTexts are the texts the parse benchmarks decode, by label.
var numericBenchTexts = []struct{ label, text string }{
	{"1299.00", "1299.00"},
	{"-0.000001", "-0.000001"},
	{"19digits", "-1234567890.123456789"},
	{"38digits", "1234567890123456789.0123456789012345678"},
	{"1000digits", "1" + strings.Repeat("234567890", 111)},
}

// BenchmarkParseNumeric compares ParseNumeric with apd's and shopspring's
// parsers on the same texts. Compare with
//
//	go test -run='^$' -bench=ParseNumeric -count=10 ./decode > new.txt
//	benchstat -col /parser new.txt
func BenchmarkParseNumeric(b *testing.B) {
	for _, tt := range numericBenchTexts {
		b.Run("text="+tt.label+"/parser=decode", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decode.ParseNumeric(tt.text); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("text="+tt.label+"/parser=apd", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := apd.NewFromString(tt.text); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("text="+tt.label+"/parser=shopspring", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decimal.NewFromString(tt.text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseNumericInput(b *testing.B) {
	for _, text := range []string{"1299.00", " 1.2990e3 ", "1e-20"} {
		b.Run("text="+strings.TrimSpace(text), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decode.ParseNumericInput(text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNumericMethods measures the accessors on a shared value.
func BenchmarkNumericMethods(b *testing.B) {
	for _, tt := range numericBenchTexts[:4] {
		n, err := decode.ParseNumeric(tt.text)
		if err != nil {
			b.Fatal(err)
		}
		m, _ := decode.ParseNumeric("1299.5")
		b.Run("method=Float64/text="+tt.label, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = n.Float64()
			}
		})
		b.Run("method=Cmp/text="+tt.label, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = n.Cmp(m)
			}
		})
		b.Run("method=Apd/text="+tt.label, func(b *testing.B) {
			b.ReportAllocs()
			var d apd.Decimal
			for b.Loop() {
				n.Apd(&d)
			}
		})
		b.Run("method=Decompose/text="+tt.label, func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 32)
			for b.Loop() {
				_, _, _, _ = n.Decompose(buf)
			}
		})
	}
}
