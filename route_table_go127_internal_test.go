//go:build go1.27

package pgcache

import (
	"database/sql"
	sqldriver "database/sql/driver"
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// routeTypes lists the route table's destination types by their type words.
func routeTypes(t *testing.T) map[unsafe.Pointer]reflect.Type {
	t.Helper()
	types := make(map[unsafe.Pointer]reflect.Type, len(routeTable))
	for w := range routeTable {
		var v any
		(*[2]unsafe.Pointer)(unsafe.Pointer(&v))[0] = w
		typ := reflect.TypeOf(v)
		if typ.Kind() != reflect.Pointer || typeWord(reflect.New(typ.Elem()).Interface()) != w {
			t.Fatalf("route table key %v: not the type word of a pointer type", typ)
		}
		types[w] = typ
	}
	return types
}

// routeOfKind returns rt's route for a value of the kind named.
func routeOfKind(rt *destRoutes, kind string) bool {
	switch kind {
	case "text":
		return rt.text != nil
	case "int":
		return rt.int != nil
	case "float":
		return rt.float != nil
	case "bool":
		return rt.bool != nil
	case "time":
		return rt.time != nil
	case "num":
		return rt.num != nil
	case "hs":
		return rt.hs != nil
	}
	panic(kind)
}

// sameRouteScan reports whether two destinations hold the same value: equal, or
// printed alike (a big.Int's or a decimal's words may be laid out
// differently for the same number).
func sameRouteScan(a, b any) bool {
	return reflect.DeepEqual(a, b) || showRouteScan(a) == showRouteScan(b)
}

// showRouteScan prints what the pointer p points to.
func showRouteScan(p any) string {
	v := reflect.ValueOf(p).Elem().Interface()
	return fmt.Sprintf("%T %+v", v, v)
}

// checkRoute compares a route's result, when it has one, with database/sql's
// conversion of the same driver value into a fresh destination of the same
// type; it reports whether the route had one.
func checkRoute(t *testing.T, what string, typ reflect.Type, v sqldriver.Value, route func(dest any) (bool, error)) bool {
	t.Helper()
	got := reflect.New(typ.Elem()).Interface()
	done, err := route(got)
	if !done {
		return false
	}
	want := reflect.New(typ.Elem()).Interface()
	wantErr := sql.ConvertAssign(sqldriver.ScanContext{}, want, v)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) || (err == nil && !sameRouteScan(got, want)) {
		t.Errorf("%s into %v: route gives %s (error %v), database/sql %s (error %v)", what, typ, showRouteScan(got), err, showRouteScan(want), wantErr)
	}
	return true
}

// TestRouteTable: every route of the table is chosen for its destination
// type and fills it, for some value of its kind, with what database/sql's
// conversion makes of the driver value pgx stdlib's conversion makes of the
// same wire bytes (uncached values, every wire kind), or of the entry's
// driver value (cached ones). A value a route declines takes stdlib's road,
// which TestScalarRoutes checks against pgx stdlib itself.
func TestRouteTable(t *testing.T) {
	types := routeTypes(t)
	filled := make(map[string]bool) // kind + " into " + type: some value took the route
	m := pgtype.NewMap()
	entryValues := map[string][]sqldriver.Value{}
	for _, wk := range wireKinds {
		conv := plainValueFunc(m, &pgconn.FieldDescription{DataTypeOID: wk.oid, Format: wk.format})
		for w, typ := range types {
			rt := routeTable[w]
			if !routeOfKind(rt, wk.kind) {
				continue
			}
			key := wk.kind + " into " + typ.String()
			for _, raw := range wk.raws {
				v, convErr := conv(raw)
				what := fmt.Sprintf("wire kind %d %x (%v)", wk.w, raw, v)
				var memo routeMemo
				done := checkRoute(t, what, typ, v, func(dest any) (bool, error) {
					rt := memo.routesFor(dest)
					if rt != routeTable[w] {
						t.Fatalf("%s into %v: the column did not choose the table's row", what, typ)
					}
					return scanWire(sqldriver.ScanContext{}, wk.w, raw, rt, dataWord(dest))
				})
				if done && convErr != nil {
					t.Errorf("%s into %v: a route for a value stdlib fails on (%v)", what, typ, convErr)
				}
				filled[key] = filled[key] || done
			}
		}
		for _, raw := range wk.raws {
			if v, err := conv(raw); err == nil {
				entryValues[wk.kind] = append(entryValues[wk.kind], v)
			}
		}
	}
	// Cached values: the entries' driver values (the text kinds' strings,
	// the fixed-size kinds' numbers and times), numeric entries, and hstore
	// entries (whose maps TestHstoreMapsFollowTypeMap checks).
	for w, typ := range types {
		rt := routeTable[w]
		for kind, vals := range entryValues {
			if !routeOfKind(rt, kind) {
				continue
			}
			for _, v := range vals {
				if checkRoute(t, fmt.Sprintf("%s entry %#v", kind, v), typ, v, func(dest any) (bool, error) {
					return assignValue(sqldriver.ScanContext{}, rt, v, dataWord(dest))
				}) {
					filled[kind+" into "+typ.String()] = true
				}
			}
		}
		if rt.num != nil {
			for _, text := range []string{"0", "1", "-1", "12.50", "-129", "300", "32768", "2147483648", "1000", "0.1", "NaN", "Infinity", "-Infinity"} {
				e, ok := buildNumEntry([]byte(text))
				if !ok {
					t.Fatalf("numeric %q: no entry", text)
				}
				if checkRoute(t, "numeric entry "+text, typ, e.value, func(dest any) (bool, error) {
					return e.scanRoute(sqldriver.ScanContext{}, rt, dataWord(dest))
				}) {
					filled["num into "+typ.String()] = true
				}
			}
		}
		if rt.hs != nil {
			e, _, ok := buildHsEntry([]byte(`"a"=>"1", "b c"=>NULL`))
			if !ok {
				t.Fatal("hstore: no entry")
			}
			got := reflect.New(typ.Elem()).Interface()
			if done, _ := e.scanRoute(sqldriver.ScanContext{}, rt, dataWord(got)); done {
				filled["hs into "+typ.String()] = true
			}
			if typ.Elem().Kind() != reflect.Map {
				checkRoute(t, "hstore entry", typ, e.value, func(dest any) (bool, error) {
					return e.scanRoute(sqldriver.ScanContext{}, rt, dataWord(dest))
				})
			}
		}
	}
	for w, typ := range types {
		rt := routeTable[w]
		for _, kind := range []string{"text", "int", "float", "bool", "time", "num", "hs"} {
			if routeOfKind(rt, kind) && !filled[kind+" into "+typ.String()] {
				t.Errorf("the route of %s into %v filled no destination", kind, typ)
			}
		}
	}
	// A type the table does not list has no routes.
	var memo routeMemo
	for _, dest := range []any{new(struct{ X int }), new(int64), new([]int64)} {
		rt := memo.routesFor(dest)
		if want := routeTable[typeWord(dest)]; (want == nil && rt != &noRoutes) || (want != nil && rt != want) {
			t.Errorf("%T: the column chose another row", dest)
		}
	}
}

// TestRouteMemoChoosesAgain: a column whose destination type changes
// chooses again, and keeps the last choice.
func TestRouteMemoChoosesAgain(t *testing.T) {
	var memo routeMemo
	for i, dest := range []any{new(int64), new(string), new(int64), new(any), new(sql.NullInt64), new(struct{}), new(int64)} {
		rt := memo.routesFor(dest)
		want := routeTable[typeWord(dest)]
		if want == nil {
			want = &noRoutes
		}
		if rt != want || memo.routes != want || memo.typ != typeWord(dest) {
			t.Fatalf("destination %d (%T): the column kept another type's routes", i, dest)
		}
	}
}
