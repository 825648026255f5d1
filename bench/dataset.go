package bench

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kind says what a data set's columns hold.
type Kind uint8

const (
	// Numeric columns are PostgreSQL numeric.
	Numeric Kind = iota
	// Hstore columns are the hstore extension's type.
	Hstore
	// Other is any other type; only user queries (see [QueryCells]) have it.
	Other
	// Lines is a data set of mixed column types (TPC-H's LINEITEM, a shop's
	// order rows, …), read into each column's natural Go type ([Natural]).
	Lines
)

func (k Kind) String() string {
	switch k {
	case Numeric:
		return "numeric"
	case Hstore:
		return "hstore"
	case Lines:
		return "mixed"
	}
	return "other"
}

// Version is stored with every loaded table (see [Load]). Bump it whenever a
// generator changes what it produces, so stale tables are reloaded rather than
// silently benchmarked.
const Version = 1

// seed is the one seed every generator derives its random streams from.
const seed = 20240917

// Column is one column of a data set table.
type Column struct {
	Name string
	Type string // SQL type, as in CREATE TABLE
}

// Enum is an enum type a data set's table uses; [Load] creates it with the
// table.
type Enum struct {
	Name   string
	Labels []string
}

// DataSet describes one benchmark table: its shape, what it models and how
// its rows are generated. Rows are a pure function of the data set and its row
// count, so every process, and every server, sees the same data.
type DataSet struct {
	// Name is the short name used in benchmark names (data=Name) and by the
	// command's -data flag.
	Name string
	// Table is the table the data set is loaded into.
	Table string
	// Kind is the type of every column.
	Kind Kind
	// Columns are the columns, in the order the benchmarks select them.
	Columns []Column
	// Rows is the number of rows; see [DataSet.WithRows].
	Rows int
	// Models says, in one line, what kind of production data this stands for.
	Models string
	// Enums are the enum types the columns use.
	Enums []Enum

	maxRows int    // 0: no limit
	dests   []Dest // nil: Dests(Kind)
	gen     func(r *rand.Rand, rows int) iter.Seq[[]string]
}

// WithRows returns d scaled to n rows (n <= 0 leaves d unchanged). The first
// rows of a scaled data set are not in general those of the full one; the
// distribution of values is the same.
func (d DataSet) WithRows(n int) DataSet {
	if n > 0 {
		d.Rows = n
	}
	return d
}

// check reports whether d can be generated.
func (d DataSet) check() error {
	if d.Rows < 1 || (d.maxRows > 0 && d.Rows > d.maxRows) {
		return fmt.Errorf("bench: data set %s: %d rows (1 to %d allowed)", d.Name, d.Rows, cmp.Or(d.maxRows, math.MaxInt))
	}
	return nil
}

// Values returns the number of values one full scan reads: rows × columns.
func (d DataSet) Values() int { return d.Rows * len(d.Columns) }

// Query returns the full-table SELECT the benchmarks run.
func (d DataSet) Query() string {
	names := make([]string, len(d.Columns))
	for i, c := range d.Columns {
		names[i] = c.Name
	}
	return "select " + strings.Join(names, ", ") + " from " + d.Table
}

// Generate yields the rows of d as the text PostgreSQL prints for each value
// (numeric texts with their full scale, hstore texts in hstore_out's key order
// and quoting), so what a driver reads back can be compared with it byte for
// byte. The yielded slice is reused between rows.
func (d DataSet) Generate() iter.Seq[[]string] {
	// One stream per data set: adding a data set does not change the others.
	h := fnv.New64a()
	h.Write([]byte(d.Name))
	return d.gen(rand.New(rand.NewPCG(seed, h.Sum64())), d.Rows)
}

// DataSets returns the benchmark data sets at their full sizes, in the order
// the benchmarks and the command run them.
func DataSets() []DataSet {
	return []DataSet{
		{
			Name:  "repetitive",
			Table: "bench_repetitive",
			Kind:  Numeric,
			Columns: []Column{
				{"price", "numeric(12,2)"}, {"list_price", "numeric(12,2)"},
				{"cost", "numeric(12,2)"}, {"discount", "numeric(12,2)"},
				{"tax_rate", "numeric(6,3)"},
			},
			Rows:   200_000,
			Models: "order lines: ~60% of prices from a dozen common ones, the rest Zipf over ~500, plus a tax rate from 16",
			gen:    genRepetitive,
		},
		{
			Name:    "distinct",
			Table:   "bench_distinct",
			Kind:    Numeric,
			Columns: []Column{{"a", "numeric(10,2)"}, {"b", "numeric(10,2)"}, {"c", "numeric(10,2)"}, {"d", "numeric(10,2)"}},
			Rows:    250_000,
			Models:  "worst case: 1M random amounts, no two equal, all short enough (≤ 8 bytes) to be looked up and miss",
			maxRows: distinctRange / 4 / 2, // rejection sampling slows down as the range fills
			gen:     genDistinct,
		},
		{
			Name:    "long",
			Table:   "bench_long",
			Kind:    Numeric,
			Columns: []Column{{"a", "numeric(18,6)"}, {"b", "numeric(18,6)"}, {"c", "numeric(18,6)"}, {"d", "numeric(18,6)"}},
			Rows:    200_000,
			Models:  "high-precision values of 9-14 bytes: repetitive, but too long for the packed keys, so every one bypasses the cache",
			gen:     genLong,
		},
		{
			Name:    "hstore-rep",
			Table:   "bench_hstore_rep",
			Kind:    Hstore,
			Columns: []Column{{"attrs", "hstore"}},
			Rows:    200_000,
			Models:  "product attributes: ~50 distinct maps of 3-5 pairs, Zipf-distributed",
			gen:     genHstoreRep,
		},
		{
			Name:  "orderlines",
			Table: "bench_orderlines",
			Kind:  Lines,
			Columns: []Column{
				{"l_orderkey", "int8"}, {"l_partkey", "int8"}, {"l_suppkey", "int8"}, {"l_linenumber", "int4"},
				{"l_quantity", "numeric(15,2)"}, {"l_extendedprice", "numeric(15,2)"},
				{"l_discount", "numeric(15,2)"}, {"l_tax", "numeric(15,2)"},
				{"l_returnflag", "char(1)"}, {"l_linestatus", "char(1)"},
				{"l_shipdate", "date"}, {"l_commitdate", "date"}, {"l_receiptdate", "date"},
				{"l_shipinstruct", "char(25)"}, {"l_shipmode", "varchar(10)"}, {"l_comment", "varchar(44)"},
			},
			Rows:   200_000,
			Models: "TPC-H LINEITEM (dbgen's distributions at scale 1/30): keys, flags, dates, codes and a free-text comment",
			gen:    genOrderLines,
		},
		{
			Name:  "shop",
			Table: "bench_shop",
			Kind:  Lines,
			Columns: []Column{
				{"id", "int8"}, {"sku", "text"}, {"price", "numeric(10,2)"}, {"vat", "numeric(4,2)"},
				{"qty", "int4"}, {"status", shopStatus.Name}, {"created_at", "timestamptz"}, {"attrs", "hstore"},
			},
			Rows:   200_000,
			Models: "a shop's order rows: distinct ids, skus from a catalogue of 3000 with their prices, a few VAT rates, small quantities, a status enum, advancing times, attribute maps that repeat",
			Enums:  []Enum{shopStatus},
			dests:  []Dest{RawBytes, Natural, Typed, PgcacheTyped},
			gen:    genShop,
		},
		{
			Name:    "distinct-keys",
			Table:   "bench_distinct_keys",
			Kind:    Lines,
			Columns: []Column{{"id", "int8"}, {"ref", "int8"}, {"code", "text"}, {"tag", "varchar(8)"}},
			Rows:    250_000,
			Models:  "worst case for pgcache_types: random int8 keys and random 8-character codes that (all but surely) never repeat",
			gen:     genDistinctKeys,
		},
		{
			Name:    "hstore-distinct",
			Table:   "bench_hstore_distinct",
			Kind:    Hstore,
			Columns: []Column{{"attrs", "hstore"}},
			Rows:    200_000,
			Models:  "worst case: every map different (a unique sku plus 2-4 common pairs)",
			gen:     genHstoreDistinct,
		},
	}
}

// Dests returns the destinations benchmarked on d.
func (d DataSet) Dests() []Dest {
	if d.dests != nil {
		return d.dests
	}
	return Dests(d.Kind)
}

// Cells returns every cell that can read d, destination-major, so that the
// drivers compared for one destination run next to each other.
func (d DataSet) Cells() []Cell {
	hstore := d.hasHstore()
	var cells []Cell
	for _, c := range cellsOf(d.Kind, d.Dests()) {
		if c.Driver == PgxNative && c.Dest == Natural && hstore {
			// With hstore registered pgx reads it in binary, and its hstore
			// codec scans binary only into map types, not into *string.
			continue
		}
		cells = append(cells, c)
	}
	return cells
}

// LookupDataSet returns the data set called name.
func LookupDataSet(name string) (DataSet, bool) {
	for _, d := range DataSets() {
		if d.Name == name {
			return d, true
		}
	}
	return DataSet{}, false
}

// CommonPrices are the dozen prices that make up ~60% of bench_repetitive's
// price columns.
var CommonPrices = []string{
	"0.00", "0.99", "1.99", "4.99", "9.99", "14.99",
	"19.99", "29.99", "49.99", "99.00", "199.00", "1299.00",
}

// taxRates are bench_repetitive's tax_rate values, numeric(6,3).
var taxRates = []string{
	"0.000", "0.050", "0.060", "0.070", "0.075", "0.080", "0.085", "0.090",
	"0.100", "0.125", "0.150", "0.190", "0.200", "0.210", "0.250", "1.000",
}

// cents formats a non-negative amount of hundredths as numeric(p,2) text.
func cents(c int64) string {
	return strconv.FormatInt(c/100, 10) + "." + fmt.Sprintf("%02d", c%100)
}

// pricePool returns n distinct prices, none of them in [CommonPrices], spread
// log-uniformly from 0.50 to 5000.00 and shuffled, so the Zipf head is not
// simply the cheapest.
func pricePool(r *rand.Rand, n int) []string {
	seen := make(map[string]bool, n+len(CommonPrices))
	for _, p := range CommonPrices {
		seen[p] = true
	}
	pool := make([]string, 0, n)
	for len(pool) < n {
		c := int64(math.Exp(math.Log(50) + r.Float64()*(math.Log(500_000)-math.Log(50))))
		if r.IntN(3) > 0 { // most prices end in .99, .95 or .00
			c = c/100*100 + []int64{99, 95, 0}[r.IntN(3)]
		}
		if p := cents(c); !seen[p] {
			seen[p] = true
			pool = append(pool, p)
		}
	}
	return pool
}

func genRepetitive(r *rand.Rand, rows int) iter.Seq[[]string] {
	pool := pricePool(r, 500)
	zipf := rand.NewZipf(r, 1.1, 4, uint64(len(pool)-1))
	price := func() string {
		if r.Float64() < 0.6 {
			return CommonPrices[r.IntN(len(CommonPrices))]
		}
		return pool[zipf.Uint64()]
	}
	return func(yield func([]string) bool) {
		row := make([]string, 5)
		for range rows {
			for i := range 4 {
				row[i] = price()
			}
			row[4] = taxRates[r.IntN(len(taxRates))]
			if !yield(row) {
				return
			}
		}
	}
}

// distinctRange is the number of distinct numeric(10,2) amounts of at most 8
// bytes: 0.00 to 99999.99.
const distinctRange = 10_000_000

func genDistinct(r *rand.Rand, rows int) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		used := make([]uint64, distinctRange/64) // a bit per amount: 1.25 MB
		row := make([]string, 4)
		for range rows {
			for i := range row {
				for {
					c := r.Int64N(distinctRange)
					if w, bit := &used[c/64], uint64(1)<<(c%64); *w&bit == 0 {
						*w |= bit
						row[i] = cents(c)
						break
					}
				}
			}
			if !yield(row) {
				return
			}
		}
	}
}

func genLong(r *rand.Rand, rows int) iter.Seq[[]string] {
	// 1000 values with 2 to 7 integer digits and 6 decimals: 9 to 14 bytes.
	pool := make([]string, 1000)
	for i := range pool {
		whole := int64(math.Exp(math.Log(10) + r.Float64()*(math.Log(10_000_000)-math.Log(10))))
		pool[i] = strconv.FormatInt(whole, 10) + "." + fmt.Sprintf("%06d", r.IntN(1_000_000))
	}
	zipf := rand.NewZipf(r, 1.1, 4, uint64(len(pool)-1))
	return func(yield func([]string) bool) {
		row := make([]string, 4)
		for range rows {
			for i := range row {
				row[i] = pool[zipf.Uint64()]
			}
			if !yield(row) {
				return
			}
		}
	}
}

// attrVocab maps hstore keys to the values they take.
var attrVocab = []struct {
	key    string
	values []string
}{
	{"color", []string{"black", "white", "red", "navy", "green", "grey"}},
	{"size", []string{"XS", "S", "M", "L", "XL", "XXL"}},
	{"brand", []string{"acme", "globex", "initech", "umbrella"}},
	{"material", []string{"cotton", "wool", "polyester", "linen"}},
	{"origin", []string{"PT", "VN", "CN", "TR", "IT"}},
	{"warranty", []string{"1y", "2y", "none"}},
	{"fit", []string{"slim", "regular", "relaxed"}},
	{"season", []string{"SS24", "AW24", "all"}},
}

// hstoreText formats pairs as hstore_out does: keys ordered by length, then
// bytewise; every key and value quoted; pairs separated by ", ". The keys and
// values generated here need no escaping.
func hstoreText(pairs [][2]string) string {
	slices.SortFunc(pairs, func(a, b [2]string) int {
		return cmp.Or(cmp.Compare(len(a[0]), len(b[0])), strings.Compare(a[0], b[0]))
	})
	var sb strings.Builder
	for i, p := range pairs {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(`"` + p[0] + `"=>"` + p[1] + `"`)
	}
	return sb.String()
}

// randomAttrs returns n pairs with distinct keys from [attrVocab].
func randomAttrs(r *rand.Rand, n int) [][2]string {
	pairs := make([][2]string, 0, n+1)
	for _, i := range r.Perm(len(attrVocab))[:n] {
		a := attrVocab[i]
		pairs = append(pairs, [2]string{a.key, a.values[r.IntN(len(a.values))]})
	}
	return pairs
}

func genHstoreRep(r *rand.Rand, rows int) iter.Seq[[]string] {
	seen := make(map[string]bool)
	var maps []string
	for len(maps) < 50 {
		if t := hstoreText(randomAttrs(r, 3+r.IntN(3))); !seen[t] {
			seen[t] = true
			maps = append(maps, t)
		}
	}
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(maps)-1))
	return func(yield func([]string) bool) {
		row := make([]string, 1)
		for range rows {
			row[0] = maps[zipf.Uint64()]
			if !yield(row) {
				return
			}
		}
	}
}

func genHstoreDistinct(r *rand.Rand, rows int) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		row := make([]string, 1)
		for i := range rows {
			pairs := append(randomAttrs(r, 2+r.IntN(3)), [2]string{"sku", fmt.Sprintf("SKU-%07d", i)})
			row[0] = hstoreText(pairs)
			if !yield(row) {
				return
			}
		}
	}
}

// TPC-H (specification 4.2.3) constants for the order-lines data set, at the
// scale factor that gives ~200k lines: 1/30.
var (
	tpchStart   = time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC)
	tpchCurrent = time.Date(1995, 6, 17, 0, 0, 0, 0, time.UTC)
	// orders are dated up to ENDDATE - 151 days (1998-08-02).
	tpchOrderDays        = int(time.Date(1998, 8, 2, 0, 0, 0, 0, time.UTC).Sub(tpchStart).Hours()/24) + 1
	tpchInstructions     = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	tpchModes            = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	tpchCommentWords     = strings.Fields("furiously quickly carefully slyly blithely ironic final regular express special pending bold even silent unusual fluffy packages deposits requests accounts instructions theodolites foxes pinto beans asymptotes dependencies courts ideas platelets sleep wake haggle nag cajole use detect integrate among across above along against")
	tpchParts, tpchSupps = 200_000 / 30, 10_000 / 30
)

// genOrderLines generates LINEITEM rows as dbgen does, approximately: orders
// of 1 to 7 lines with sparse order keys, random parts and their suppliers,
// quantities of 1 to 50, prices from the part's retail price, discounts of 0
// to 10% and taxes of 0 to 8%, dates derived from a uniform order date, the
// return flag and line status from the dates, and a comment of random words.
func genOrderLines(r *rand.Rand, rows int) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		row := make([]string, 16)
		n := 0
		for order := 0; n < rows; order++ {
			orderKey := int64(order/8*32 + order%8 + 1) // dbgen's sparse keys
			orderDate := tpchStart.AddDate(0, 0, r.IntN(tpchOrderDays))
			lines := 1 + r.IntN(7)
			for line := 1; line <= lines && n < rows; line++ {
				part := 1 + r.IntN(tpchParts)
				supp := (part+r.IntN(4)*(tpchSupps/4+(part-1)/tpchSupps))%tpchSupps + 1
				qty := 1 + r.IntN(50)
				retail := int64(90000 + (part/10)%20001 + 100*(part%1000)) // cents
				ship := orderDate.AddDate(0, 0, 1+r.IntN(121))
				commit := orderDate.AddDate(0, 0, 30+r.IntN(61))
				receipt := ship.AddDate(0, 0, 1+r.IntN(30))
				flag := "N"
				if !receipt.After(tpchCurrent) {
					flag = []string{"R", "A"}[r.IntN(2)]
				}
				status := "F"
				if ship.After(tpchCurrent) {
					status = "O"
				}
				var comment strings.Builder
				for target := 10 + r.IntN(34); comment.Len() < target; {
					w := tpchCommentWords[r.IntN(len(tpchCommentWords))]
					if comment.Len()+1+len(w) > 43 {
						break
					}
					if comment.Len() > 0 {
						comment.WriteByte(' ')
					}
					comment.WriteString(w)
				}
				row[0] = strconv.FormatInt(orderKey, 10)
				row[1] = strconv.Itoa(part)
				row[2] = strconv.Itoa(supp)
				row[3] = strconv.Itoa(line)
				row[4] = cents(int64(qty) * 100)
				row[5] = cents(int64(qty) * retail)
				row[6] = cents(int64(r.IntN(11)))
				row[7] = cents(int64(r.IntN(9)))
				row[8], row[9] = flag, status
				row[10], row[11], row[12] = ship.Format(time.DateOnly), commit.Format(time.DateOnly), receipt.Format(time.DateOnly)
				row[13] = fmt.Sprintf("%-25s", tpchInstructions[r.IntN(len(tpchInstructions))]) // char(25), as printed
				row[14] = tpchModes[r.IntN(len(tpchModes))]
				row[15] = comment.String()
				n++
				if !yield(row) {
					return
				}
			}
		}
	}
}

// shopStatus is the shop data set's order status type.
var shopStatus = Enum{"bench_shop_status", []string{"pending", "paid", "shipped", "delivered", "cancelled", "refunded"}}

// weighted returns a function that draws one of values, value i with
// probability weights[i] / sum(weights).
func weighted(r *rand.Rand, values []string, weights []int) func() string {
	var total int
	cum := make([]int, len(weights))
	for i, w := range weights {
		total += w
		cum[i] = total
	}
	return func() string {
		n := r.IntN(total)
		i, _ := slices.BinarySearch(cum, n+1)
		return values[i]
	}
}

// genShop generates a shop's order rows. Each sku of a catalogue of 3000
// short codes has its own price, one of 300 price points, and is ordered
// with Zipf-distributed popularity; VAT rates, quantities and statuses are
// drawn with fixed weights; created_at advances by 1 to 90 seconds a row;
// attrs holds a sales channel and, often, a colour and a size, and now and
// then a gift flag: a few hundred distinct maps.
func genShop(r *rand.Rand, rows int) iter.Seq[[]string] {
	prices := pricePool(r, 300)
	type item struct{ sku, price string }
	catalogue := make([]item, 3000)
	seen := make(map[string]bool, len(catalogue))
	for i := range catalogue {
		for {
			sku := fmt.Sprintf("%c%c-%05d", 'A'+r.IntN(26), 'A'+r.IntN(26), r.IntN(100_000))
			if !seen[sku] {
				seen[sku] = true
				catalogue[i] = item{sku, prices[r.IntN(len(prices))]}
				break
			}
		}
	}
	popular := rand.NewZipf(r, 1.1, 8, uint64(len(catalogue)-1))
	vat := weighted(r, []string{"20.00", "10.00", "5.50", "0.00", "19.00", "7.00", "21.00"}, []int{55, 12, 8, 5, 10, 5, 5})
	qty := weighted(r, []string{"1", "2", "3", "4", "5", "6", "10", "12", "24"}, []int{60, 18, 8, 4, 3, 2, 2, 2, 1})
	status := weighted(r, shopStatus.Labels, []int{4, 6, 8, 75, 5, 2})
	channel := weighted(r, []string{"web", "app", "store", "phone"}, []int{50, 30, 15, 5})
	colour := weighted(r, []string{"black", "white", "navy", "grey", "red", "green"}, []int{30, 25, 15, 12, 10, 8})
	size := weighted(r, []string{"S", "M", "L", "XL", "XS", "XXL"}, []int{20, 30, 25, 12, 8, 5})
	return func(yield func([]string) bool) {
		row := make([]string, 8)
		id := int64(1_000_000)
		at := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
		for range rows {
			id += 1 + r.Int64N(3)
			at = at.Add(time.Duration(1+r.IntN(90)) * time.Second)
			it := catalogue[popular.Uint64()]
			pairs := [][2]string{{"channel", channel()}}
			if r.IntN(10) < 7 {
				pairs = append(pairs, [2]string{"colour", colour()})
			}
			if r.IntN(10) < 6 {
				pairs = append(pairs, [2]string{"size", size()})
			}
			if r.IntN(20) == 0 {
				pairs = append(pairs, [2]string{"gift", "yes"})
			}
			row[0] = strconv.FormatInt(id, 10)
			row[1] = it.sku
			row[2] = it.price
			row[3] = vat()
			row[4] = qty()
			row[5] = status()
			row[6] = at.Format("2006-01-02 15:04:05") + "+00"
			row[7] = hstoreText(pairs)
			if !yield(row) {
				return
			}
		}
	}
}

// genDistinctKeys yields random, never repeating int8 keys and short texts.
func genDistinctKeys(r *rand.Rand, rows int) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		seen := make(map[uint64]bool, 4*rows)
		unique := func() uint64 {
			for {
				if v := r.Uint64() >> 1; !seen[v] {
					seen[v] = true
					return v
				}
			}
		}
		const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		code := func() string { // 36^8 codes: a repeat among 500k is unlikely, not impossible
			v := unique()
			b := make([]byte, 8)
			for i := range b {
				b[i] = letters[v%uint64(len(letters))]
				v /= uint64(len(letters))
			}
			return string(b)
		}
		row := make([]string, 4)
		for range rows {
			row[0] = strconv.FormatUint(unique(), 10)
			row[1] = strconv.FormatUint(unique(), 10)
			row[2] = code()
			row[3] = code()
			if !yield(row) {
				return
			}
		}
	}
}
