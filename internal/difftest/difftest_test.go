package difftest_test

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/internal/difftest"
	"github.com/pgcache/pgcache/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestOpenPairTraffic: the pair reads the same values, and Traffic counts the
// pgcache read (a miss, an admission, three hits) and nothing of pgx
// stdlib's.
func TestOpenPairTraffic(t *testing.T) {
	std, pc := difftest.OpenPair(t, pgtest.DSN(t))
	read := func(db *sql.DB) []string {
		rows, err := db.Query("select 1.25::numeric from generate_series(1, 5)")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got []string
		for rows.Next() {
			var d pgcache.Decimal
			if err := rows.Scan(&d); err != nil {
				t.Fatal(err)
			}
			got = append(got, d.String())
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return got
	}
	pgcache.ResetCache()
	var want, got []string
	num, hs := difftest.Traffic(func() { want = read(std) })
	if num != (cache.Counts{}) || hs != (cache.Counts{}) {
		t.Errorf("pgx stdlib's traffic: numeric %v, hstore %v, want none", num, hs)
	}
	num, hs = difftest.Traffic(func() { got = read(pc) })
	if want := (cache.Counts{Misses: 1, Admissions: 1, Hits: 3}); num != want || hs != (cache.Counts{}) {
		t.Errorf("pgcache's traffic: numeric %v, hstore %v, want numeric %v", num, hs, want)
	}
	if !difftest.CompareLines(t, "values", want, got) || len(got) != 5 {
		t.Errorf("read %q", got)
	}
}

// failures records what CompareLines reports.
type failures struct {
	testing.TB
	msgs []string
}

func (f *failures) Helper() {}

func (f *failures) Errorf(format string, args ...any) {
	f.msgs = append(f.msgs, format)
}

func TestCompareLines(t *testing.T) {
	for _, tc := range []struct {
		name      string
		want, got []string
		failures  int
	}{
		{"same", []string{"a", "b"}, []string{"a", "b"}, 0},
		{"none", nil, []string{}, 0},
		{"one line differs", []string{"a", "b", "c"}, []string{"a", "x", "c"}, 1},
		{"two lines differ", []string{"a", "b"}, []string{"x", "y"}, 2},
		{"lengths differ", []string{"a"}, []string{"a", "b"}, 1},
	} {
		f := &failures{TB: t}
		same := difftest.CompareLines(f, tc.name, tc.want, tc.got)
		if len(f.msgs) != tc.failures || same != (tc.failures == 0) {
			t.Errorf("%s: CompareLines = %v with %d failures %q, want %d", tc.name, same, len(f.msgs), f.msgs, tc.failures)
		}
	}
}

func TestRecord(t *testing.T) {
	var r difftest.Record
	r.Add("a %d", 1)
	r.Add("b %q", "x")
	if got := strings.Join(r, "|"); got != `a 1|b "x"` {
		t.Errorf("record %q", got)
	}
}

func TestMust(t *testing.T) {
	if d := difftest.MustDecimal(t, "1.50"); d.String() != "1.50" {
		t.Errorf("MustDecimal(1.50) = %s", d)
	}
	if h := difftest.MustHstore(t, `"a"=>"1"`); h.Len() != 1 || h.String() != `"a"=>"1"` {
		t.Errorf("MustHstore = %v", h)
	}
}
