package integration

import (
	"fmt"

	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/pgcache/pgcache"
)

// Product has pgcache's four types as untagged fields: their GormDataType
// methods give the column types.
type Product struct {
	ID       uint
	Name     string
	Price    pgcache.Decimal
	Discount pgcache.NullDecimal
	Attrs    pgcache.Hstore
	Extra    pgcache.NullHstore
}

func (p Product) String() string {
	return fmt.Sprintf("%d %s %s %v/%s %s %v/%s", p.ID, p.Name, p.Price, p.Discount.Valid, p.Discount.Decimal,
		p.Attrs, p.Extra.Valid, p.Extra.Hstore)
}

// sqlLog is a GORM logger that keeps every statement GORM runs.
type sqlLog struct {
	mu    sync.Mutex
	stmts []string
}

func (l *sqlLog) LogMode(logger.LogLevel) logger.Interface { return l }
func (l *sqlLog) Info(context.Context, string, ...any)     {}
func (l *sqlLog) Warn(context.Context, string, ...any)     {}
func (l *sqlLog) Error(context.Context, string, ...any)    {}
func (l *sqlLog) Trace(_ context.Context, _ time.Time, fc func() (string, int64), _ error) {
	s, _ := fc()
	l.mu.Lock()
	l.stmts = append(l.stmts, s)
	l.mu.Unlock()
}

func (l *sqlLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stmts
	l.stmts = nil
	return s
}

// openGorm opens GORM on database/sql driver driverName, the way the GORM
// docs show for a custom driver.
func openGorm(t *testing.T, driverName, dsn string, log *sqlLog) *gorm.DB {
	t.Helper()
	gdb, err := gorm.Open(postgres.New(postgres.Config{DriverName: driverName, DSN: dsn}), &gorm.Config{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, err := gdb.DB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqlDB.Close() })
	return gdb
}

// TestGORM: AutoMigrate gives untagged pgcache fields numeric and hstore
// columns (checked in information_schema), a second AutoMigrate changes
// nothing, and Create, First, Find, Where and Update give the same results
// through both drivers.
func TestGORM(t *testing.T) {
	numeric, hstore := compareDrivers(t, func(t *testing.T, driverName, dsn string) record {
		var r record
		log := &sqlLog{}
		gdb := openGorm(t, driverName, dsn, log).WithContext(testContext(t))

		if err := gdb.AutoMigrate(&Product{}); err != nil {
			t.Fatal(err)
		}
		var cols []struct{ ColumnName, DataType, UdtName string }
		if err := gdb.Raw(`select column_name, data_type, udt_name from information_schema.columns
			where table_name = 'products' order by ordinal_position`).Scan(&cols).Error; err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"price": "numeric", "discount": "numeric", "attrs": "hstore", "extra": "hstore"}
		for _, c := range cols {
			r.Add("column %s %s %s", c.ColumnName, c.DataType, c.UdtName)
			if w, ok := want[c.ColumnName]; ok && c.UdtName != w {
				t.Errorf("column %s has type %s (%s), want %s", c.ColumnName, c.UdtName, c.DataType, w)
			}
		}
		log.take()
		if err := gdb.AutoMigrate(&Product{}); err != nil {
			t.Fatal(err)
		}
		second := log.take()
		if len(second) == 0 {
			t.Error("the second AutoMigrate logged no statement: the check below would prove nothing")
		}
		for _, s := range second {
			if u := strings.ToUpper(strings.TrimSpace(s)); strings.HasPrefix(u, "ALTER") || strings.HasPrefix(u, "CREATE") {
				t.Errorf("second AutoMigrate ran %s", s)
			}
		}

		for i := range 30 {
			p := Product{
				Name:  fmt.Sprintf("p%d", i),
				Price: mustDecimal(t, []string{"9.99", "19.90", "0.50"}[i%3]),
				Attrs: mustHstore(t, []string{`"a"=>"1"`, `"a"=>"2", "b"=>NULL`}[i%2]),
			}
			if i%2 == 0 {
				p.Discount = pgcache.NullDecimal{Decimal: mustDecimal(t, "0.10"), Valid: true}
				p.Extra = pgcache.NullHstore{Hstore: mustHstore(t, `"x"=>"y"`), Valid: true}
			}
			if err := gdb.Create(&p).Error; err != nil {
				t.Fatal(err)
			}
		}

		var first Product
		if err := gdb.First(&first).Error; err != nil {
			t.Fatal(err)
		}
		r.Add("first: %s", first)
		var all []Product
		for range 2 {
			if err := gdb.Order("id").Find(&all).Error; err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range all {
			r.Add("find: %s", p)
		}
		var cheap []Product
		if err := gdb.Where("price < ?", mustDecimal(t, "10")).Order("id").Find(&cheap).Error; err != nil {
			t.Fatal(err)
		}
		r.Add("where: %d rows", len(cheap))
		res := gdb.Model(&Product{}).Where("price = ?", mustDecimal(t, "0.50")).Update("price", mustDecimal(t, "0.55"))
		if res.Error != nil {
			t.Fatal(res.Error)
		}
		r.Add("update: %d rows", res.RowsAffected)
		if err := gdb.Model(&first).Updates(Product{Name: "renamed", Attrs: mustHstore(t, `"c"=>"3"`)}).Error; err != nil {
			t.Fatal(err)
		}
		var again Product
		if err := gdb.First(&again, first.ID).Error; err != nil {
			t.Fatal(err)
		}
		r.Add("after updates: %s", again)
		return r
	})
	requireHits(t, "numeric", numeric)
	requireHits(t, "hstore", hstore)
}
