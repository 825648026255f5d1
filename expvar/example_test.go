package expvar_test

import (
	"database/sql"
	"log"
	"net/http"

	_ "github.com/pgcache/pgcache/expvar" // publishes pgcache.Stats() as "pgcache"
)

// Importing the package publishes the statistics; serving expvar's handler
// (net/http's DefaultServeMux has it at /debug/vars) makes them visible:
//
//	curl -s localhost:6060/debug/vars | jq .pgcache.Numeric.Hits
func Example() {
	db, err := sql.Open("pgcache", "postgres://app@db/shop")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	go func() { log.Println(http.ListenAndServe("localhost:6060", nil)) }()
	// … use db …
}
