package decode

import (
	"cmp"
	"database/sql"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Hstore is an immutable parsed hstore value: a set of unique string keys, each
// mapped to a string or to NULL.
//
// Hstore is a small value type: two string headers and a slice header. Copying
// it shares the immutable backing data, so one parsed value can be handed out
// from a cache to any number of goroutines without allocating or locking. No
// method modifies it; all methods are safe for concurrent use. [Hstore.Map]
// returns a copy that the caller owns.
//
// Pairs are kept in hstore order, the order in which PostgreSQL stores and
// prints them: shorter keys first, keys of equal length compared bytewise.
//
// The zero Hstore is the empty hstore (text ""). SQL NULL is not an Hstore;
// callers represent it separately.
type Hstore struct {
	text string // what the value was parsed from, or its hstore_out text
	// unescaped holds, back to back, the unescaped copies of the keys and
	// values that contained escapes in text. Usually "".
	unescaped string
	pairs     []pair // in hstore order, keys unique
}

// pair locates one key and its value as byte ranges of Hstore.text, or of
// Hstore.unescaped when the offset has the inUnescaped bit. Go strings are
// immutable, so handing out substrings of the text is safe and copies
// nothing.
//
// Offsets rather than strings keep pair free of pointers. Measured with
// BenchmarkParseHstore (100 pairs, 3 s runs, so garbage collection is
// included): pairs holding two strings spent 16% of the CPU profile in write
// barriers and the parse took 1.4 times as long. A pointer-free slice needs no
// write barriers, is never scanned by the garbage collector however long a
// cache keeps it, and takes 16 bytes a pair instead of 40.
type pair struct {
	keyOff, keyLen uint32
	valOff, valLen uint32 // valLen is nullLen for NULL
}

const (
	// inUnescaped marks an offset into Hstore.unescaped. While parsing it
	// marks a range of text that still needs unescaping.
	inUnescaped = 1 << 31
	// nullLen is the valLen of a NULL value.
	nullLen = math.MaxUint32
	// maxHstoreText is the longest text offsets can address. PostgreSQL
	// cannot produce even half of it: a cstring is at most 1 GB.
	maxHstoreText = inUnescaped - 1
)

// at returns the string at off and n.
func (h *Hstore) at(off, n uint32) string {
	if off&inUnescaped != 0 {
		off &^= inUnescaped
		return h.unescaped[off : off+n]
	}
	return h.text[off : off+n]
}

func (h *Hstore) key(p pair) string { return h.at(p.keyOff, p.keyLen) }

// value returns p's value and whether it is NULL.
func (h *Hstore) value(p pair) (string, bool) {
	if p.valLen == nullLen {
		return "", true
	}
	return h.at(p.valOff, p.valLen), false
}

// compareKeys orders keys the way hstore stores them: by length, then
// bytewise. hstore_out prints pairs in this order, so [ParseHstore] can check
// it in passing and [Hstore.Lookup] can binary-search it.
func compareKeys(a, b string) int {
	if len(a) != len(b) {
		return cmp.Compare(len(a), len(b))
	}
	return strings.Compare(a, b)
}

// ParseHstore parses text as produced by PostgreSQL's hstore_out: either ""
// (the empty hstore) or pairs separated by ", " (a comma and one space), each
// pair a double-quoted key, "=>", and a double-quoted value or the bare word
// NULL:
//
//	"a"=>"1", "b"=>NULL, "say \"hi\""=>"C:\\tmp"
//
// Inside quotes the only escapes are \" and \\. Anything else that hstore_in
// would accept (unquoted words, extra white space, other escapes) is rejected
// with an [*Error] wrapping [ErrSyntax] whose Pos is the first offending byte.
// NUL bytes are rejected too: PostgreSQL text cannot contain them.
//
// The returned value keeps text and takes its keys and values as substrings of
// it, which is safe because Go strings are immutable: text must be an ordinary
// string, not one made with unsafe over a buffer that will be reused. (So a
// key or value that a caller keeps also keeps the whole text alive.)
//
// The pairs are counted before parsing (one '>' per "=>") so that their slice
// is allocated once, at its final size: a text without escapes costs exactly
// one allocation. Keys and values with escapes are unescaped after the parse
// into one more string, however many there are. Only if many keys or values
// contain '>' is the pairs slice copied once more, to size.
//
// hstore_out prints pairs in hstore order with unique keys, and ParseHstore
// verifies that in passing. Text from elsewhere may be out of order or repeat a
// key; then the pairs are sorted stably into hstore order and, for a repeated
// key, the first occurrence is kept and later ones are dropped. That is what
// PostgreSQL 15's hstore_in keeps for every input of fewer than seven pairs and
// for every input already in hstore order. For longer unordered input
// PostgreSQL's choice follows its unstable quicksort and is documented as
// unspecified ("there is no guarantee as to which will be kept"), so keeping
// the first is the predictable choice. [Hstore.Text] still returns the original
// text; [Hstore.AppendText] gives the canonical form.
func ParseHstore(text string) (Hstore, error) {
	if len(text) > maxHstoreText {
		return Hstore{}, &Error{Type: "hstore", Text: text, Pos: -1, Err: ErrRange,
			Detail: "text longer than " + strconv.Itoa(maxHstoreText) + " bytes"}
	}
	return parseHstore(text, true)
}

// parseHstore is [ParseHstore]. [HstoreFromMap] passes rejectNUL false: it
// formats what the caller gave it, NUL bytes included, and leaves rejecting
// them to the server.
func parseHstore(text string, rejectNUL bool) (Hstore, error) {
	if text == "" {
		return Hstore{}, nil
	}
	p := hstoreParser{
		text:      text,
		backslash: indexByteFrom(text, 0, '\\'),
		nul:       -1,
	}
	if rejectNUL {
		p.nul = strings.IndexByte(text, 0)
	}
	pairs := make([]pair, 0, estimateHstorePairs(text))
	ordered := true      // so far, keys are in hstore order and unique
	escapedKeys := false // some key needs unescaping, so ordered must wait
	unescapedLen := 0    // total length of the keys and values to unescape
	pos := 0
	for {
		if pos == len(text) || text[pos] != '"' {
			return Hstore{}, p.failFound(pos, `expected '"' to open a key`)
		}
		var pr pair
		end, escapes, err := p.quoted(pos, "key")
		if err != nil {
			return Hstore{}, err
		}
		pr.keyOff, pr.keyLen = uint32(pos+1), uint32(end-pos-1)
		if escapes > 0 {
			pr.keyOff |= inUnescaped
			unescapedLen += end - pos - 1 - escapes
			escapedKeys = true
		}
		pos = end + 1
		if !strings.HasPrefix(text[pos:], "=>") {
			return Hstore{}, p.failFound(pos+matchLen(text[pos:], "=>"), `expected "=>" after the key`)
		}
		pos += 2
		switch {
		case pos < len(text) && text[pos] == '"':
			end, escapes, err := p.quoted(pos, "value")
			if err != nil {
				return Hstore{}, err
			}
			pr.valOff, pr.valLen = uint32(pos+1), uint32(end-pos-1)
			if escapes > 0 {
				pr.valOff |= inUnescaped
				unescapedLen += end - pos - 1 - escapes
			}
			pos = end + 1
		case strings.HasPrefix(text[pos:], "NULL"):
			pr.valLen = nullLen
			pos += len("NULL")
		default:
			return Hstore{}, p.failFound(pos+matchLen(text[pos:], "NULL"), `expected '"' or NULL for the value`)
		}
		if ordered && !escapedKeys && len(pairs) > 0 {
			prev := pairs[len(pairs)-1]
			ordered = prev.keyLen < pr.keyLen || prev.keyLen == pr.keyLen &&
				text[prev.keyOff:prev.keyOff+prev.keyLen] < text[pr.keyOff:pr.keyOff+pr.keyLen]
		}
		pairs = append(pairs, pr)
		if pos == len(text) {
			break
		}
		if text[pos] != ',' {
			return Hstore{}, p.failFound(pos, `expected ", " or the end of the text after a pair`)
		}
		if pos+1 == len(text) || text[pos+1] != ' ' {
			return Hstore{}, p.failFound(pos+1, `expected ' ' after ','`)
		}
		pos += 2
	}
	if p.nul >= 0 {
		return Hstore{}, p.fail(p.nul, "")
	}
	if unused := cap(pairs) - len(pairs); unused > cap(pairs)/4 {
		// Keys or values held many '>': trim the slack rather than keep it
		// alive in every cached copy.
		pairs = slices.Clone(pairs)
	}
	h := Hstore{text: text, pairs: pairs}
	if unescapedLen > 0 {
		h.unescape(unescapedLen)
	}
	if escapedKeys { // check the order now that every key is readable
		for i := 1; ordered && i < len(h.pairs); i++ {
			ordered = compareKeys(h.key(h.pairs[i-1]), h.key(h.pairs[i])) < 0
		}
	}
	if !ordered {
		// Stable, so that among equal keys the first in the text comes first
		// and is the one CompactFunc keeps.
		slices.SortStableFunc(h.pairs, func(a, b pair) int { return compareKeys(h.key(a), h.key(b)) })
		h.pairs = slices.CompactFunc(h.pairs, func(a, b pair) bool { return h.key(a) == h.key(b) })
	}
	return h, nil
}

// unescape copies every key and value still marked as needing it into one
// string of the given total length, which becomes h.unescaped: one
// allocation however many there are.
func (h *Hstore) unescape(total int) {
	var sb strings.Builder
	sb.Grow(total)
	move := func(off, n uint32) (uint32, uint32) {
		if off&inUnescaped == 0 {
			return off, n
		}
		raw := h.text[off&^inUnescaped : off&^inUnescaped+n]
		start := sb.Len()
		from := 0 // raw[from:i] is pending
		for i := 0; i < len(raw); i++ {
			if raw[i] == '\\' { // the parser checked: '"' or '\\' follows
				sb.WriteString(raw[from:i])
				i++
				from = i
			}
		}
		sb.WriteString(raw[from:])
		return uint32(start) | inUnescaped, uint32(sb.Len() - start)
	}
	for i := range h.pairs {
		p := &h.pairs[i]
		p.keyOff, p.keyLen = move(p.keyOff, p.keyLen)
		if p.valLen != nullLen {
			p.valOff, p.valLen = move(p.valOff, p.valLen)
		}
	}
	h.unescaped = sb.String()
}

// estimateHstorePairs returns how many pairs to allocate for: the number of
// '>' bytes, one per "=>", which is exact unless keys or values contain '>'.
// Counting a single byte is vectorized and cheap next to the parse. An exact
// count (strings.Index for `"=>`, skipping escaped quotes) measured 5 to 100
// times slower, as slow as the whole parse of an unescaped text. The estimate
// is clamped to the most pairs the length allows (`""=>""` plus ", " is 8
// bytes), so '>'-heavy garbage cannot force an oversized allocation.
func estimateHstorePairs(text string) int {
	return min(strings.Count(text, ">"), (len(text)+2)/8)
}

// hstoreParser holds what ParseHstore's helpers share.
type hstoreParser struct {
	text string
	// backslash is the index of the next '\\' at or after the current
	// position, or len(text) if there is none. Looking it up again only
	// after an escaped run, rather than in every run, keeps text without
	// escapes to a single IndexByte per run. It never falls behind the
	// position: outside quotes a backslash is a syntax error, so the parser
	// cannot step over one without quoted seeing it.
	backslash int
	nul       int // index of the first NUL byte, or -1
}

// quoted scans the quoted key or value whose opening quote is at open. It
// returns the index of the closing quote and how many escapes lie between.
func (p *hstoreParser) quoted(open int, what string) (end, escapes int, err *Error) {
	end = indexByteFrom(p.text, open+1, '"')
	if end < p.backslash { // found the closing quote, and no escape before it
		return end, 0, nil
	}
	if p.backslash == len(p.text) {
		return 0, 0, p.unterminated(open, what)
	}
	// There is a backslash before the first quote, or no quote at all: either
	// way the escapes decide, and an invalid one is the first fault.
	return p.quotedEscaped(open, what)
}

// quotedEscaped is quoted's slow path for a run that contains a backslash. It
// finds the closing quote and checks the escapes; copying the unescaped
// contents is left to [Hstore.unescape], which does all of them in one
// allocation. From the first backslash on it steps through the bytes, as
// escaped runs are short: measured with three escapes in a 20-byte value,
// that is faster than an IndexByte for each escape.
func (p *hstoreParser) quotedEscaped(open int, what string) (end, escapes int, err *Error) {
	text := p.text
	// quoted found no '"' between open and this backslash.
	for i := p.backslash; i < len(text); i++ {
		switch text[i] {
		case '"':
			p.backslash = indexByteFrom(text, i+1, '\\')
			return i, escapes, nil
		case '\\':
			if i+1 == len(text) {
				return 0, 0, p.unterminated(open, what)
			}
			if c := text[i+1]; c != '"' && c != '\\' {
				return 0, 0, p.fail(i, "invalid escape "+strconv.Quote(text[i:i+2])+` in a quoted `+what+`: only \" and \\ are allowed`)
			}
			escapes++
			i++
		}
	}
	return 0, 0, p.unterminated(open, what)
}

func (p *hstoreParser) unterminated(open int, what string) *Error {
	return p.fail(len(p.text), `missing '"' to close the `+what+" opened at byte "+strconv.Itoa(open))
}

// failFound reports that expected was not at pos and says what was there.
func (p *hstoreParser) failFound(pos int, expected string) *Error {
	return p.fail(pos, expected+", found "+describeByteAt(p.text, pos))
}

// fail builds the error for pos. A NUL byte before pos is the earlier fault,
// so it is reported instead.
func (p *hstoreParser) fail(pos int, detail string) *Error {
	if p.nul >= 0 && p.nul <= pos {
		return syntaxError("hstore", p.text, p.nul, "NUL byte: PostgreSQL text cannot contain NUL")
	}
	return syntaxError("hstore", p.text, pos, detail)
}

// describeByteAt names what is at pos for an error message.
func describeByteAt(s string, pos int) string {
	if pos >= len(s) {
		return "end of text"
	}
	r, size := utf8.DecodeRuneInString(s[pos:])
	if r == utf8.RuneError && size == 1 {
		return "byte 0x" + strconv.FormatUint(uint64(s[pos]), 16)
	}
	return strconv.QuoteRune(r)
}

// indexByteFrom returns the index of the first c in s at or after from, or
// len(s) if there is none.
func indexByteFrom(s string, from int, c byte) int {
	i := strings.IndexByte(s[from:], c)
	if i < 0 {
		return len(s)
	}
	return from + i
}

// matchLen returns how many leading bytes of s match want, so an error can
// point at the first byte that differs ("NUL" + 'x' fails at the 'x').
func matchLen(s, want string) int {
	n := 0
	for n < len(s) && n < len(want) && s[n] == want[n] {
		n++
	}
	return n
}

// Text returns the text h was parsed from. For an Hstore made by
// [HstoreFromMap], and for any text PostgreSQL produced, that is the canonical
// hstore_out form; [Hstore.AppendText] formats it anew.
func (h Hstore) Text() string { return h.text }

// Len returns the number of pairs.
func (h Hstore) Len() int { return len(h.pairs) }

// linearLookupMax is the largest hstore that Lookup scans linearly rather than
// binary-searching. Measured with BenchmarkHstoreLookup (keys "key0"...,
// linear vs binary): 3 keys 8 vs 13 ns, 6 keys 14 vs 16 ns, 8 keys 18 vs 17 ns,
// 10 keys 23 vs 18 ns, 100 keys 173 vs 28 ns.
const linearLookupMax = 8

// find returns the index of key in h.pairs.
func (h *Hstore) find(key string) (int, bool) {
	if len(h.pairs) <= linearLookupMax {
		return h.findLinear(key)
	}
	return h.findBinary(key)
}

// findLinear scans the pairs, comparing lengths first. Keys are ordered by
// length, so it stops at the first longer one.
func (h *Hstore) findLinear(key string) (int, bool) {
	if len(key) > maxHstoreText {
		return 0, false
	}
	n := uint32(len(key))
	for i, p := range h.pairs {
		if p.keyLen == n && h.at(p.keyOff, n) == key {
			return i, true
		}
		if p.keyLen > n {
			break
		}
	}
	return 0, false
}

// findBinary binary-searches the pairs, which are in hstore order. The
// lengths are in the pairs themselves, so most probes compare no bytes.
func (h *Hstore) findBinary(key string) (int, bool) {
	if len(key) > maxHstoreText {
		return 0, false
	}
	n := uint32(len(key))
	ps := h.pairs
	lo, hi := 0, len(ps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p := ps[m]; p.keyLen < n || p.keyLen == n && h.at(p.keyOff, n) < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(ps) && ps[lo].keyLen == n && h.at(ps[lo].keyOff, n) == key
}

// Lookup returns the value stored for key. ok is false when key is absent;
// isNull is true when key is present with a NULL value. The returned string
// shares h's memory; it does not allocate.
func (h Hstore) Lookup(key string) (value string, isNull bool, ok bool) {
	i, ok := h.find(key)
	if !ok {
		return "", false, false
	}
	value, isNull = h.value(h.pairs[i])
	return value, isNull, true
}

// Has reports whether key is present, whatever its value (NULL included).
func (h Hstore) Has(key string) bool {
	_, ok := h.find(key)
	return ok
}

// All returns an iterator over the pairs in hstore order. A NULL value is
// yielded with Valid false.
func (h Hstore) All() iter.Seq2[string, sql.NullString] {
	return func(yield func(string, sql.NullString) bool) {
		for _, p := range h.pairs {
			v, isNull := h.value(p)
			if !yield(h.key(p), sql.NullString{String: v, Valid: !isNull}) {
				return
			}
		}
	}
}

// Map returns the pairs as a new map in the shape of pgx's pgtype.Hstore: a
// NULL value is a nil pointer. The map and the strings it points to are fresh
// copies owned by the caller, who may modify them without affecting h. One
// array backs all the value pointers, rather than one allocation per value.
func (h Hstore) Map() map[string]*string {
	m := make(map[string]*string, len(h.pairs))
	values := make([]string, len(h.pairs))
	for i, p := range h.pairs {
		v, isNull := h.value(p)
		if isNull {
			m[h.key(p)] = nil
			continue
		}
		values[i] = v
		m[h.key(p)] = &values[i]
	}
	return m
}

// AppendText appends h formatted as hstore_out does: every key and every
// non-NULL value double-quoted with '"' and '\\' escaped, NULL bare, pairs in
// hstore order separated by ", ". For a value parsed from canonical text this
// reproduces [Hstore.Text].
func (h Hstore) AppendText(b []byte) []byte {
	b = slices.Grow(b, len(h.text))
	for i, p := range h.pairs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendHstoreQuoted(b, h.key(p))
		b = append(b, "=>"...)
		if v, isNull := h.value(p); isNull {
			b = append(b, "NULL"...)
		} else {
			b = appendHstoreQuoted(b, v)
		}
	}
	return b
}

// appendHstoreQuoted appends s in double quotes, escaping '"' and '\\'.
func appendHstoreQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for {
		i := indexQuoteOrBackslash(s)
		if i < 0 {
			break
		}
		b = append(b, s[:i]...)
		b = append(b, '\\', s[i])
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, '"')
}

func indexQuoteOrBackslash(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			return i
		}
	}
	return -1
}

// hstoreQuotedLen is the length of appendHstoreQuoted's output for s.
func hstoreQuotedLen(s string) int {
	return len(s) + 2 + strings.Count(s, `"`) + strings.Count(s, `\`)
}

// AppendJSON appends h as a JSON object with the keys in hstore order and NULL
// values as null. Strings are escaped as [encoding/json] escapes them with
// HTML escaping off ([encoding/json.Encoder.SetEscapeHTML](false)): '"', '\\'
// and control characters are escaped, U+2028 and U+2029 become \u2028 and
// \u2029, and each byte of invalid UTF-8 becomes \ufffd. The output is always
// valid JSON, and its keys are unique because h's keys are.
func (h Hstore) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, p := range h.pairs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, h.key(p))
		b = append(b, ':')
		if v, isNull := h.value(p); isNull {
			b = append(b, "null"...)
		} else {
			b = appendJSONString(b, v)
		}
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string literal.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0 // s[start:i] is pending, needing no escapes
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// HstoreFromMap builds an Hstore from m, for encoding a Go value: the pairs in
// hstore order, a nil pointer as NULL, and Text set to the hstore_out form
// that [Hstore.AppendText] gives. A nil or empty map gives the empty hstore.
// The result refers to neither m nor its strings, so later changes to m do not
// affect it.
//
// PostgreSQL text cannot hold NUL bytes; keys or values containing them are
// formatted as they are, and the server will reject the text. HstoreFromMap
// panics if the text would exceed 2 GiB, twice what PostgreSQL accepts.
func HstoreFromMap(m map[string]*string) Hstore {
	if len(m) == 0 {
		return Hstore{}
	}
	keys := make([]string, 0, len(m))
	size := 2 * (len(m) - 1) // ", " separators
	for k, v := range m {
		keys = append(keys, k)
		size += hstoreQuotedLen(k) + len("=>")
		if v == nil {
			size += len("NULL")
		} else {
			size += hstoreQuotedLen(*v)
		}
	}
	if size > maxHstoreText {
		panic("decode: HstoreFromMap: hstore text of " + strconv.Itoa(size) + " bytes exceeds 2 GiB")
	}
	slices.SortFunc(keys, compareKeys)
	// Format into a builder sized exactly, so that the text is allocated once
	// and not copied again from a []byte.
	var sb strings.Builder
	sb.Grow(size)
	for i, k := range keys {
		if i > 0 {
			sb.WriteString(", ")
		}
		writeHstoreQuoted(&sb, k)
		sb.WriteString("=>")
		if v := m[k]; v == nil {
			sb.WriteString("NULL")
		} else {
			writeHstoreQuoted(&sb, *v)
		}
	}
	// Parsing the text back gives pairs that point into it, like those of a
	// value read from the server, and cannot fail: the text is canonical.
	h, err := parseHstore(sb.String(), false)
	if err != nil {
		panic("decode: HstoreFromMap: cannot parse its own text: " + err.Error())
	}
	return h
}

// writeHstoreQuoted is appendHstoreQuoted for a [strings.Builder].
func writeHstoreQuoted(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for {
		i := indexQuoteOrBackslash(s)
		if i < 0 {
			break
		}
		sb.WriteString(s[:i])
		sb.WriteByte('\\')
		sb.WriteByte(s[i])
		s = s[i+1:]
	}
	sb.WriteString(s)
	sb.WriteByte('"')
}
