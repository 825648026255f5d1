package driver

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// DSN option keys. Both work in URL DSNs (?pgcache=off) and keyword/value DSNs
// (pgcache=off).
const (
	// KeyCache switches the cache on or off for every column of a connection.
	KeyCache = "pgcache"
	// KeyDisable lists columns that bypass the cache.
	KeyDisable = "pgcache_disable"
)

// knownKeys are pgcache's DSN keys, the only ones Extract takes.
var knownKeys = []string{KeyCache, KeyDisable, KeyTypes}

// nearMiss reports whether a DSN key that is not one of pgcache's reads as a
// misspelling of one (pgcache_disabel, PGCACHE_TYPES, pgcahce): such a key is
// an error naming the known options rather than a setting sent to the server,
// which would reject it with a less helpful message, or, for pgcache=off,
// accept nothing at all. A key with a dot is a custom server parameter
// (pgcache.foo=bar is a legal one) and goes to the server as pgx sends it.
func nearMiss(key string) bool {
	if strings.Contains(key, ".") {
		return false
	}
	lower := strings.ToLower(key)
	if strings.HasPrefix(lower, KeyCache) {
		return true
	}
	for _, k := range knownKeys {
		if editDistance(lower, k) <= 2 {
			return true
		}
	}
	return false
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Sentinel causes wrapped by [*OptionError].
var (
	ErrUnknownOption = errors.New("unknown option")
	ErrInvalidValue  = errors.New("invalid value")
)

// OptionError reports a pgcache DSN option that is not known or whose value does
// not parse. It names the key, so a typo in a long DSN is easy to find.
type OptionError struct {
	Key    string
	Value  string
	Err    error  // ErrUnknownOption or ErrInvalidValue
	Reason string // what is wrong or what is expected
}

func (e *OptionError) Error() string {
	if errors.Is(e.Err, ErrUnknownOption) {
		return fmt.Sprintf("pgcache: unknown DSN option %q (known options: %s, %s, %s)", e.Key, KeyCache, KeyDisable, KeyTypes)
	}
	return fmt.Sprintf("pgcache: invalid DSN option %s=%q: %s", e.Key, e.Value, e.Reason)
}

func (e *OptionError) Unwrap() error { return e.Err }

// Options are pgcache's settings for one connector: parsed from the DSN, or from
// the RuntimeParams of a pgx.ConnConfig, before any of it reaches the server.
// The zero value is not the default; use [DefaultOptions].
type Options struct {
	// Cache is false when pgcache=off: every column is decoded exactly as pgx
	// stdlib decodes it and the cache is never consulted.
	Cache bool
	// Disable lists the columns whose values bypass the cache.
	Disable []Column
	// Types are the column types cached besides numeric and hstore
	// (pgcache_types): [DefaultTypes] when the option is absent, the empty
	// set for pgcache_types=none.
	Types TypeSet
}

// DefaultOptions is what a DSN without pgcache options means: cache on, no
// column disabled, the running toolchain's [DefaultTypes] cached besides
// numeric and hstore.
func DefaultOptions() Options { return Options{Cache: true, Types: DefaultTypes} }

// Column names one entry of pgcache_disable. With Table empty it matches a
// result column by the name the server reports for it; otherwise it matches a
// table column wherever it appears in a result, through the table OID and
// attribute number the server attaches to each result field.
//
// Names are SQL identifiers: unquoted ones are folded to lower case, as
// PostgreSQL folds them; double-quoted ones keep their case and may contain
// dots, commas and spaces ("" stands for one double quote).
type Column struct {
	Schema string // optional, only with Table
	Table  string
	Name   string
}

// String formats c as it would be written in a DSN, quoting where needed, so
// that ParseDisable(c.String()) gives c back.
func (c Column) String() string {
	var b strings.Builder
	if c.Schema != "" {
		b.WriteString(quoteIdent(c.Schema))
		b.WriteByte('.')
	}
	if c.Table != "" {
		b.WriteString(quoteIdent(c.Table))
		b.WriteByte('.')
	}
	b.WriteString(quoteIdent(c.Name))
	return b.String()
}

// Extract removes pgcache's keys (pgcache, pgcache_disable, pgcache_types)
// from params and parses them: pgx puts DSN keys it does not know into
// ConnConfig.RuntimeParams and would send them to the server, which rejects
// them. Every other key stays, for the server, custom parameters such as
// pgcache.foo included. A key that reads as a misspelling of one of pgcache's
// (one starting with "pgcache" without a dot, in any case, or within two
// edits of a known key) or a malformed value is an *OptionError naming the
// key. params may be nil.
func Extract(params map[string]string) (Options, error) {
	opts := DefaultOptions()
	// Visit keys in a fixed order so the first error reported is deterministic.
	var keys []string
	for k := range params {
		if slices.Contains(knownKeys, k) || nearMiss(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var firstErr error
	for _, k := range keys {
		v := params[k]
		delete(params, k)
		if firstErr != nil {
			continue
		}
		switch k {
		case KeyCache:
			on, err := ParseBool(k, v)
			if err != nil {
				firstErr = err
				continue
			}
			opts.Cache = on
		case KeyDisable:
			cols, err := ParseDisable(v)
			if err != nil {
				firstErr = err
				continue
			}
			opts.Disable = cols
		case KeyTypes:
			set, err := ParseTypes(v)
			if err != nil {
				firstErr = &OptionError{Key: k, Value: v, Err: ErrInvalidValue, Reason: err.Error()}
				continue
			}
			opts.Types = set
		default:
			firstErr = &OptionError{Key: k, Value: v, Err: ErrUnknownOption}
		}
	}
	if firstErr != nil {
		return Options{}, firstErr
	}
	return opts, nil
}

// Params is the inverse of Extract: the options as DSN key/value pairs, with
// defaults left out (Types equal to [DefaultTypes] among them; an empty Types
// is pgcache_types=none).
func (o Options) Params() map[string]string {
	p := map[string]string{}
	if !o.Cache {
		p[KeyCache] = "off"
	}
	if len(o.Disable) > 0 {
		parts := make([]string, len(o.Disable))
		for i, c := range o.Disable {
			parts[i] = c.String()
		}
		p[KeyDisable] = strings.Join(parts, ",")
	}
	if o.Types != DefaultTypes {
		p[KeyTypes] = o.Types.String()
	}
	return p
}

// ParseBool accepts the spellings PostgreSQL accepts for a boolean setting:
// on/off, true/false, yes/no, 1/0, in any case.
func ParseBool(key, s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "on", "true", "yes", "1":
		return true, nil
	case "off", "false", "no", "0":
		return false, nil
	}
	return false, &OptionError{Key: key, Value: s, Err: ErrInvalidValue, Reason: "want on/off, true/false, yes/no or 1/0"}
}

// ParseDisable parses the value of pgcache_disable: a comma-separated list of
// column, table.column or schema.table.column entries. Spaces around entries
// are ignored; an empty value means no column. An empty entry, an identifier
// that is not a valid SQL identifier, or more than three parts is an error.
func ParseDisable(s string) ([]Column, error) {
	// Only ASCII spaces and tabs separate entries (as skipSpace says): a
	// Unicode space such as U+00A0 is part of an identifier, so strings.TrimSpace
	// would wrongly call a list holding such a column empty.
	if strings.Trim(s, " \t") == "" {
		return nil, nil
	}
	var cols []Column
	p := identParser{s: s}
	for {
		p.skipSpace()
		parts, err := p.entry()
		if err != nil {
			return nil, &OptionError{Key: KeyDisable, Value: s, Err: ErrInvalidValue, Reason: err.Error()}
		}
		var c Column
		switch len(parts) {
		case 1:
			c = Column{Name: parts[0]}
		case 2:
			c = Column{Table: parts[0], Name: parts[1]}
		case 3:
			c = Column{Schema: parts[0], Table: parts[1], Name: parts[2]}
		default:
			return nil, &OptionError{Key: KeyDisable, Value: s, Err: ErrInvalidValue,
				Reason: fmt.Sprintf("entry %d has %d dot-separated parts; want column, table.column or schema.table.column", len(cols)+1, len(parts))}
		}
		cols = append(cols, c)
		p.skipSpace()
		if p.eof() {
			return cols, nil
		}
		if p.s[p.i] != ',' {
			return nil, &OptionError{Key: KeyDisable, Value: s, Err: ErrInvalidValue,
				Reason: fmt.Sprintf("unexpected %q at byte %d; entries are separated by commas", p.s[p.i], p.i)}
		}
		p.i++
	}
}

// identParser reads dot-separated SQL identifiers.
type identParser struct {
	s string
	i int
}

func (p *identParser) eof() bool { return p.i >= len(p.s) }

func (p *identParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// entry reads ident(.ident)*.
func (p *identParser) entry() ([]string, error) {
	var parts []string
	for {
		id, err := p.ident()
		if err != nil {
			return nil, err
		}
		parts = append(parts, id)
		if p.eof() || p.s[p.i] != '.' {
			return parts, nil
		}
		p.i++
	}
}

// ident reads one quoted or unquoted identifier.
func (p *identParser) ident() (string, error) {
	if p.eof() {
		return "", fmt.Errorf("missing column name at byte %d", p.i)
	}
	if p.s[p.i] == '"' {
		var b strings.Builder
		start := p.i
		p.i++
		for {
			j := strings.IndexByte(p.s[p.i:], '"')
			if j < 0 {
				return "", fmt.Errorf("unterminated quoted identifier starting at byte %d", start)
			}
			b.WriteString(p.s[p.i : p.i+j])
			p.i += j + 1
			if p.i < len(p.s) && p.s[p.i] == '"' { // "" is a literal quote
				b.WriteByte('"')
				p.i++
				continue
			}
			break
		}
		if b.Len() == 0 {
			return "", fmt.Errorf("empty quoted identifier at byte %d", start)
		}
		return checkIdent(b.String(), start)
	}
	start := p.i
	for p.i < len(p.s) && isIdentByte(p.s[p.i], p.i == start) {
		p.i++
	}
	if p.i == start {
		return "", fmt.Errorf("unexpected %q at byte %d; want a column name", p.s[p.i], p.i)
	}
	return checkIdent(asciiLower(p.s[start:p.i]), start)
}

// checkIdent rejects identifiers no PostgreSQL object can have: one holding a
// NUL byte, or one that is not UTF-8 (a DSN is text; the connection's catalog
// lookup converts names from UTF-8 to the database's encoding). Long names
// are accepted: they are truncated as the server truncates them (see
// [TruncateIdentifier]).
func checkIdent(id string, start int) (string, error) {
	if strings.IndexByte(id, 0) >= 0 {
		return "", fmt.Errorf("identifier starting at byte %d contains a NUL byte", start)
	}
	if !utf8.ValidString(id) {
		return "", fmt.Errorf("identifier starting at byte %d is not valid UTF-8", start)
	}
	return id, nil
}

// asciiLower folds ASCII letters only, as PostgreSQL folds unquoted
// identifiers in a UTF-8 database.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// isIdentByte reports whether c may appear in an unquoted identifier. Bytes
// from 0x80 up are allowed, as PostgreSQL allows non-ASCII letters.
func isIdentByte(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c >= 0x80:
		return true
	case c >= '0' && c <= '9', c == '$':
		return !first
	}
	return false
}

// quoteIdent quotes id unless it reads back unchanged as an unquoted identifier.
func quoteIdent(id string) string {
	plain := id != ""
	for i := 0; i < len(id) && plain; i++ {
		c := id[i]
		plain = isIdentByte(c, i == 0) && !(c >= 'A' && c <= 'Z')
	}
	if plain {
		return id
	}
	return `"` + strings.ReplaceAll(id, `"`, `""`) + `"`
}
