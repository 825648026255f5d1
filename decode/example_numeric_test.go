package decode_test

import (
	"errors"
	"fmt"

	"github.com/pgcache/pgcache/decode"
)

func ExampleParseNumeric() {
	price, err := decode.ParseNumeric("1299.50")
	if err != nil {
		panic(err)
	}
	f, _ := price.Float64()
	fmt.Println(price.Text(), f, price.Sign())

	// The scale is part of the text, not of the value.
	same, _ := decode.ParseNumeric("1299.5")
	fmt.Println(price.Cmp(same), price.Text() == same.Text())

	// Apd returns a copy the caller may change; price stays as it was.
	d := price.Apd(nil)
	d.Negative = true
	fmt.Println(d, price)

	fmt.Println(string(price.AppendJSON(nil)), string(decode.Zero.AppendJSON(nil)))

	_, err = decode.ParseNumeric("1e+")
	fmt.Println(err, errors.Is(err, decode.ErrSyntax))

	// Output:
	// 1299.50 1299.5 1
	// 0 false
	// -1299.50 1299.50
	// 1299.50 0
	// decode numeric "1e+": invalid syntax at byte 1: unexpected 'e' true
}

func ExampleParseNumericInput() {
	for _, s := range []string{" 1.50e1 ", "-0.00", "+.5", "1e3", "-inf", "nan"} {
		n, err := decode.ParseNumericInput(s)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%q → %s\n", s, n.Text())
	}
	// Output:
	// " 1.50e1 " → 15.0
	// "-0.00" → 0.00
	// "+.5" → 0.5
	// "1e3" → 1000
	// "-inf" → -Infinity
	// "nan" → NaN
}
