package driver

import (
	"strings"
	"testing"
)

// TestNewSetupBareNames: bare names that need no help from the server are
// truncated here, as PostgreSQL truncates identifiers (63 bytes, whole UTF-8
// characters); the others go to the server, spelled in hex.
func TestNewSetupBareNames(t *testing.T) {
	long := strings.Repeat("a", 70)
	accents := strings.Repeat("é", 40) // 80 bytes; the server keeps 31 characters, 62 bytes
	cols, err := ParseDisable(long + `, "` + accents + `", short`)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Cache: true, Disable: cols}

	s, query := newSetup(o, true, false)
	for _, tc := range []struct {
		name   string
		cached bool
	}{
		{long[:63], false},
		{long, true}, // the server never reports a name this long
		{long[:62], true},
		{strings.Repeat("é", 31), false},
		{strings.Repeat("é", 31) + "\xc3", true},
		{"short", false},
		{"other", true},
	} {
		if got := s.Cached(tc.name, 0, 0); got != tc.cached {
			t.Errorf("UTF-8 server and client: Cached(%q) = %t, want %t", tc.name, got, tc.cached)
		}
	}
	if strings.Contains(query, "union all\nselect 2") {
		t.Errorf("with UTF-8 on both sides no name needs the server, but the query asks it:\n%s", query)
	}

	// Under another encoding only the ASCII names are known here; the
	// accented one is for the server to spell and truncate.
	s, query = newSetup(o, false, false)
	if s.Cached(long[:63], 0, 0) || s.Cached("short", 0, 0) {
		t.Error("other encodings: an ASCII name is not disabled")
	}
	if !s.Cached(strings.Repeat("é", 31), 0, 0) {
		t.Error("other encodings: the accented name was decided without the server")
	}
	if want := identLiteral(accents); !strings.Contains(query, want) {
		t.Errorf("query does not hold %s:\n%s", want, query)
	}

	// After the server could not convert a name, non-ASCII entries are dropped.
	_, query = newSetup(o, false, true)
	if strings.Contains(query, "select 2") {
		t.Errorf("dropNonASCII: the query still asks for names:\n%s", query)
	}
}

// TestCatalogQueryIsPlainASCII: whatever the identifiers, the catalog query
// holds no byte a client encoding could change, and no backslash or quote
// that standard_conforming_strings could make mean something else.
func TestCatalogQueryIsPlainASCII(t *testing.T) {
	cols, err := ParseDisable(`"a'b\c", "é""x".y, s."名前".z, "` + strings.Repeat("ü", 50) + `"`)
	if err != nil {
		t.Fatal(err)
	}
	_, query := newSetup(Options{Cache: true, Disable: cols}, false, false)
	for i := 0; i < len(query); i++ {
		if query[i] >= 0x80 || query[i] == '\\' {
			t.Fatalf("byte %d of the query is %q:\n%s", i, query[i], query)
		}
	}
	// Every literal is one of the query's fixed ones or hex digits.
	for i, lit := range strings.Split(query, "'")[1:] {
		if i%2 == 1 {
			continue // between two literals
		}
		switch {
		case lit == "" || lit == "hex" || lit == "UTF8" || lit == "e" || lit == "hstore" ||
			lit == "pg_catalog.pg_type" || lit == "pg_catalog.pg_extension":
		case strings.Trim(lit, "0123456789abcdef") == "":
		default:
			t.Errorf("unexpected literal %q in the query", lit)
		}
	}
}
