package pgcache_test

import (
	"testing"

	"github.com/pgcache/pgcache"
)

// TestGormDataType checks the column types GORM reads from pgcache's types.
// GORM finds the method by asserting its one-method interface on a pointer to
// a new field value; both the value and the pointer must have it. The
// integration module proves on a real database that AutoMigrate uses them.
func TestGormDataType(t *testing.T) {
	type gormDataTyper interface{ GormDataType() string }
	for _, tt := range []struct {
		v    gormDataTyper
		want string
	}{
		{pgcache.Decimal{}, "numeric"},
		{&pgcache.Decimal{}, "numeric"},
		{pgcache.NullDecimal{}, "numeric"},
		{&pgcache.NullDecimal{}, "numeric"},
		{pgcache.Hstore{}, "hstore"},
		{&pgcache.Hstore{}, "hstore"},
		{pgcache.NullHstore{}, "hstore"},
		{&pgcache.NullHstore{}, "hstore"},
	} {
		if got := tt.v.GormDataType(); got != tt.want {
			t.Errorf("%T.GormDataType() = %q, want %q", tt.v, got, tt.want)
		}
	}
}
