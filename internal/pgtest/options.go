package pgtest

import (
	"fmt"
	"net/url"
	"strings"
)

// WithOptions returns dsn with the keyword/value pairs kv added (kv holds
// keyword, value, keyword, value, …), in whichever form dsn has: to a
// postgres:// or postgresql:// URL as query parameters, replacing any of the
// same name; to a keyword/value DSN appended, quoted as libpq reads them, so
// that they override earlier ones. It panics if kv has an odd length, and
// returns an error only for a URL that does not parse.
//
// Appending " pgcache_types=all" to a DSN by hand breaks the URL form; this
// is the spelling that works for both.
func WithOptions(dsn string, kv ...string) (string, error) {
	if len(kv)%2 != 0 {
		panic("pgtest.WithOptions: odd number of arguments")
	}
	if isURL(dsn) {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", fmt.Errorf("pgtest: %w", err)
		}
		q := u.Query()
		for i := 0; i < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		// pgx reads '+' as itself, not as a space; Encode has escaped every
		// literal '+' as %2B.
		u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
		return u.String(), nil
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(dsn))
	for i := 0; i < len(kv); i += 2 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(kv[i])
		b.WriteByte('=')
		b.WriteString(quoteValue(kv[i+1]))
	}
	return b.String(), nil
}

// MustWithOptions is [WithOptions] for tests: it fails t on error.
func MustWithOptions(t interface {
	Helper()
	Fatal(...any)
}, dsn string, kv ...string) string {
	t.Helper()
	s, err := WithOptions(dsn, kv...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func isURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}
