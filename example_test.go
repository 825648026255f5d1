package pgcache_test

import (
	"database/sql"
	"fmt"
	"log"
	"os"

	"github.com/pgcache/pgcache"
)

// Switching an application to pgcache changes only the driver name: the DSN,
// the queries and the Scan destinations stay. Scanning into a
// pgcache.Decimal instead of a string or float64 is optional; a repeated
// value then comes back as one shared, immutable decimal with no allocation.
func Example() {
	// Was: sql.Open("pgx", os.Getenv("DATABASE_URL"))
	db, err := sql.Open("pgcache", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	rows, err := db.Query("select sku, price from products order by sku")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var sku string
		var price pgcache.Decimal
		if err := rows.Scan(&sku, &price); err != nil {
			log.Fatal(err)
		}
		fmt.Println(sku, price)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	s := pgcache.Stats()
	fmt.Printf("numeric cache: %d hits, %d misses\n", s.Numeric.Hits, s.Numeric.Misses)
}

// Decimals of different scales are different texts but equal values.
func ExampleDecimal_Cmp() {
	a, _ := pgcache.ParseDecimal("1.50")
	b, _ := pgcache.ParseDecimal("1.5")
	nan, _ := pgcache.ParseDecimal("NaN")
	fmt.Println(a, b, a.Cmp(b))
	// PostgreSQL sorts NaN above every other value, infinities included.
	fmt.Println(nan.Cmp(a))
	// Output:
	// 1.50 1.5 0
	// 1
}

// ParseDecimal reads numeric input as PostgreSQL does and keeps the text
// PostgreSQL would print for it.
func ExampleParseDecimal() {
	for _, s := range []string{"1.50e1", " +0.001 ", "-0.00", "inf", "12abc"} {
		d, err := pgcache.ParseDecimal(s)
		if err != nil {
			fmt.Printf("%q is not a number\n", s)
			continue
		}
		fmt.Println(d)
	}
	// Output:
	// 15.0
	// 0.001
	// 0.00
	// Infinity
	// "12abc" is not a number
}

// Lookup tells an absent key from a key whose value is NULL.
func ExampleHstore_Lookup() {
	h, err := pgcache.ParseHstore(`"color"=>"red", "size"=>NULL`)
	if err != nil {
		log.Fatal(err)
	}
	for _, key := range []string{"color", "size", "weight"} {
		v, ok := h.Lookup(key)
		fmt.Printf("%s: present=%t valid=%t %q\n", key, ok, v.Valid, v.String)
	}
	// Output:
	// color: present=true valid=true "red"
	// size: present=true valid=false ""
	// weight: present=false valid=false ""
}
