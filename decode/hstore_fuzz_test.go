package decode_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/decode"
)

// refParseHstore is a deliberately naive, byte-at-a-time reading of the
// grammar ParseHstore accepts, used as the fuzz oracle. It returns the pairs
// in text order, duplicates included, or the offset of the first byte at
// fault (a NUL byte anywhere is at fault).
func refParseHstore(s string) (pairs []kv, errPos int) {
	i := 0
	quoted := func() (string, int) {
		// s[i] is the opening quote
		i++
		var b []byte
		for {
			switch {
			case i >= len(s):
				return "", len(s)
			case s[i] == 0:
				return "", i
			case s[i] == '"':
				i++
				return string(b), -1
			case s[i] == '\\':
				if i+1 >= len(s) {
					return "", len(s)
				}
				if s[i+1] != '"' && s[i+1] != '\\' {
					return "", i
				}
				b = append(b, s[i+1])
				i += 2
			default:
				b = append(b, s[i])
				i++
			}
		}
	}
	literal := func(want string) int {
		for j := range len(want) {
			if i >= len(s) || s[i] != want[j] {
				return i
			}
			i++
		}
		return -1
	}
	if s == "" {
		return nil, -1
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return nil, i
		}
		var p kv
		var bad int
		if p.key, bad = quoted(); bad >= 0 {
			return nil, bad
		}
		if bad = literal("=>"); bad >= 0 {
			return nil, bad
		}
		if i < len(s) && s[i] == '"' {
			var v string
			if v, bad = quoted(); bad >= 0 {
				return nil, bad
			}
			p.value = &v
		} else if bad = literal("NULL"); bad >= 0 {
			return nil, bad
		}
		pairs = append(pairs, p)
		if i == len(s) {
			return pairs, -1
		}
		if bad = literal(", "); bad >= 0 {
			return nil, bad
		}
	}
}

// hstoreOrder sorts pairs stably into hstore order and keeps the first of
// each key (first is true) or the last.
func hstoreOrder(ps []kv, first bool) []kv {
	ps = slices.Clone(ps)
	if !first {
		slices.Reverse(ps)
	}
	slices.SortStableFunc(ps, func(a, b kv) int {
		if len(a.key) != len(b.key) {
			return len(a.key) - len(b.key)
		}
		return strings.Compare(a.key, b.key)
	})
	return slices.CompactFunc(ps, func(a, b kv) bool { return a.key == b.key })
}

func addHstoreSeeds(f *testing.F) {
	// Long seeds make every execution slow and mutate no better than short
	// ones, so they are left to the table tests.
	for _, tt := range validHstores {
		if len(tt.text) <= 1000 {
			f.Add(tt.text)
		}
	}
	for _, tt := range invalidHstores {
		if len(tt.text) <= 1000 {
			f.Add(tt.text)
		}
	}
}

// FuzzHstore checks that ParseHstore never panics, accepts exactly what the
// reference parser accepts (failing at the same byte), and that accepted text
// round-trips through AppendText.
func FuzzHstore(f *testing.F) {
	addHstoreSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		h, err := decode.ParseHstore(text)
		raw, errPos := refParseHstore(text)
		if err != nil {
			var de *decode.Error
			if !errors.As(err, &de) || !errors.Is(err, decode.ErrSyntax) {
				t.Fatalf("error %v is not a *decode.Error wrapping ErrSyntax", err)
			}
			if errPos != de.Pos {
				t.Fatalf("ParseHstore(%q) failed at byte %d (%v), the reference at %d", text, de.Pos, err, errPos)
			}
			return
		}
		if errPos >= 0 {
			t.Fatalf("ParseHstore(%q) accepted it, the reference failed at byte %d", text, errPos)
		}
		want := hstoreOrder(raw, true)
		if got := pairsOf(h); kvString(got) != kvString(want) {
			t.Fatalf("ParseHstore(%q) pairs\n got %s\nwant %s", text, kvString(got), kvString(want))
		}
		if h.Text() != text {
			t.Fatalf("Text() = %q, want %q", h.Text(), text)
		}
		out := string(h.AppendText(nil))
		canonical := len(raw) == len(want) && kvString(raw) == kvString(want)
		if canonical != (out == text) {
			t.Fatalf("input %q canonical=%v, AppendText gave %q", text, canonical, out)
		}
		h2, err := decode.ParseHstore(out)
		if err != nil {
			t.Fatalf("reparse of AppendText output %q: %v", out, err)
		}
		if kvString(pairsOf(h2)) != kvString(want) {
			t.Fatalf("reparsed pairs\n got %s\nwant %s", kvString(pairsOf(h2)), kvString(want))
		}
		for _, p := range want {
			v, isNull, ok := h.Lookup(p.key)
			if !ok || isNull != (p.value == nil) || p.value != nil && v != *p.value {
				t.Fatalf("Lookup(%q) = %q, %v, %v", p.key, v, isNull, ok)
			}
		}
		if js := h.AppendJSON(nil); !sameJSON(string(js), jsonObject(t, want)) || !json.Valid(js) {
			t.Fatalf("AppendJSON = %s, want %s", js, jsonObject(t, want))
		}
	})
}

// FuzzHstorePgtype checks that pgx's parser succeeds on every text
// ParseHstore accepts and reads the same pairs, except that for a repeated
// key pgx keeps the last value and ParseHstore the first.
func FuzzHstorePgtype(f *testing.F) {
	addHstoreSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		h, err := decode.ParseHstore(text)
		if err != nil {
			return
		}
		var pg pgtype.Hstore
		if err := pg.Scan(text); err != nil {
			t.Fatalf("ParseHstore accepted %q, pgtype.Hstore.Scan: %v", text, err)
		}
		raw, _ := refParseHstore(text)
		if !equalMaps(map[string]*string(pg), kvMap(hstoreOrder(raw, false))) {
			t.Fatalf("pgtype read %q as %v", text, pg)
		}
		if !equalMaps(h.Map(), kvMap(hstoreOrder(raw, true))) {
			t.Fatalf("Map() of %q = %v", text, h.Map())
		}
		if len(raw) == h.Len() && !equalMaps(h.Map(), map[string]*string(pg)) {
			t.Fatalf("no repeated keys in %q, yet Map() = %v and pgtype = %v", text, h.Map(), pg)
		}
	})
}

// FuzzHstoreFromMap builds maps from arbitrary bytes, split at NUL (which
// PostgreSQL text cannot hold) into alternating keys and values; a value of
// "\x01" stands for NULL. HstoreFromMap's text must parse back to the map.
func FuzzHstoreFromMap(f *testing.F) {
	f.Add([]byte("a\x00b"))
	f.Add([]byte("a\x00\x01\x00\x00\x00b\"\\\x00=>, "))
	f.Add([]byte("k\x00v\x00k\x00w\x00kk\x00\x00\xff\x00\xfe"))
	for _, tt := range validHstores {
		if len(tt.want) > 20 {
			continue
		}
		var b []byte
		for _, p := range tt.want {
			b = append(b, p.key...)
			b = append(b, 0)
			if p.value == nil {
				b = append(b, 1)
			} else {
				b = append(b, *p.value...)
			}
			b = append(b, 0)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fields := bytes.Split(data, []byte{0})
		m := make(map[string]*string)
		for i := 0; i < len(fields); i += 2 {
			var v *string
			if i+1 < len(fields) && string(fields[i+1]) != "\x01" {
				v = str(string(fields[i+1]))
			}
			m[string(fields[i])] = v
		}
		h := decode.HstoreFromMap(m)
		if h.Len() != len(m) {
			t.Fatalf("Len() = %d for %d keys", h.Len(), len(m))
		}
		if got := string(h.AppendText(nil)); got != h.Text() {
			t.Fatalf("Text() = %q, AppendText = %q", h.Text(), got)
		}
		h2, err := decode.ParseHstore(h.Text())
		if err != nil {
			t.Fatalf("ParseHstore(HstoreFromMap(%v).Text()): %v", m, err)
		}
		if !equalMaps(h2.Map(), m) || !equalMaps(h.Map(), m) {
			t.Fatalf("map %v came back as %v", m, h2.Map())
		}
		if got := string(h2.AppendText(nil)); got != h.Text() {
			t.Fatalf("text %q reformatted as %q", h.Text(), got)
		}
	})
}
