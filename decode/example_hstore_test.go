package decode_test

import (
	"fmt"

	"github.com/pgcache/pgcache/decode"
)

func ExampleParseHstore() {
	// The text PostgreSQL sends for an hstore column.
	h, err := decode.ParseHstore(`"a"=>"1", "b"=>NULL, "say \"hi\""=>"C:\\tmp"`)
	if err != nil {
		panic(err)
	}

	v, isNull, ok := h.Lookup("a")
	fmt.Printf("a: %q null=%v present=%v\n", v, isNull, ok)
	_, isNull, ok = h.Lookup("b")
	fmt.Printf("b: null=%v present=%v\n", isNull, ok)
	_, _, ok = h.Lookup("c")
	fmt.Printf("c: present=%v\n", ok)

	for k, v := range h.All() {
		fmt.Printf("%s => %q (valid=%v)\n", k, v.String, v.Valid)
	}
	fmt.Println(string(h.AppendJSON(nil)))

	// Only what hstore_out produces is accepted.
	_, err = decode.ParseHstore(`a=>1`)
	fmt.Println(err)
	// Output:
	// a: "1" null=false present=true
	// b: null=true present=true
	// c: present=false
	// a => "1" (valid=true)
	// b => "" (valid=false)
	// say "hi" => "C:\\tmp" (valid=true)
	// {"a":"1","b":null,"say \"hi\"":"C:\\tmp"}
	// decode hstore "a=>1": invalid syntax at byte 0: expected '"' to open a key, found 'a'
}

func ExampleHstoreFromMap() {
	v := `x"y`
	h := decode.HstoreFromMap(map[string]*string{"bb": &v, "a": nil, "c": &v})
	// Pairs are in hstore order: shorter keys first, then bytewise.
	fmt.Println(h.Text())
	// Output:
	// "a"=>NULL, "c"=>"x\"y", "bb"=>"x\"y"
}
