package pgcache

import (
	"bytes"
	"database/sql"
	sqldriver "database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"iter"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/decode"
)

// Hstore is an immutable PostgreSQL hstore: a set of string keys, each with a
// string value or NULL. The zero Hstore is the empty hstore, which is not the
// same as SQL NULL (see [NullHstore]).
//
// An Hstore scanned from a cached column is shared by every reader of the same
// text, with no allocation; nothing can change it. [Hstore.Map] and
// [Hstore.Pgtype] return copies the caller owns.
type Hstore struct {
	h decode.Hstore
}

// NullHstore is an [Hstore] that may be SQL NULL.
type NullHstore struct {
	Hstore Hstore
	Valid  bool // Valid is true if Hstore is not NULL
}

// ParseHstore parses text in the form PostgreSQL's hstore output uses:
// "k"=>"v" pairs, NULL values unquoted, separated by ", ".
func ParseHstore(text string) (Hstore, error) {
	h, err := decode.ParseHstore(text)
	if err != nil {
		return Hstore{}, err
	}
	return Hstore{h}, nil
}

// HstoreFromMap builds an Hstore from m; a nil *string is a NULL value.
func HstoreFromMap(m map[string]*string) Hstore { return Hstore{decode.HstoreFromMap(m)} }

// Len returns the number of keys.
func (h Hstore) Len() int { return h.h.Len() }

// Lookup returns the value of key. ok is false when key is absent; a present
// key with a NULL value returns an invalid NullString and ok true.
func (h Hstore) Lookup(key string) (value sql.NullString, ok bool) {
	v, isNull, ok := h.h.Lookup(key)
	return sql.NullString{String: v, Valid: ok && !isNull}, ok
}

// Has reports whether key is present (with any value, NULL included).
func (h Hstore) Has(key string) bool { return h.h.Has(key) }

// All iterates over the pairs in hstore order (shorter keys first, then
// bytewise). NULL values are NullStrings with Valid false.
func (h Hstore) All() iter.Seq2[string, sql.NullString] { return h.h.All() }

// Map returns a new map the caller owns; NULL values are nil pointers.
func (h Hstore) Map() map[string]*string { return h.h.Map() }

// Pgtype returns a new pgtype.Hstore (the caller owns it) with the same pairs.
func (h Hstore) Pgtype() pgtype.Hstore { return pgtype.Hstore(h.h.Map()) }

// String returns the hstore text: PostgreSQL's output form for a value read
// from the server or made by [HstoreFromMap], and otherwise the text it was
// parsed from ([ParseHstore] and Scan accept other orders and repeated keys).
// [Hstore.Value] always gives the output form.
func (h Hstore) String() string { return h.h.Text() }

// MarshalJSON writes a JSON object, NULL values as null.
func (h Hstore) MarshalJSON() ([]byte, error) { return h.h.AppendJSON(nil), nil }

// UnmarshalJSON reads a JSON object whose values are strings or null.
func (h *Hstore) UnmarshalJSON(b []byte) error {
	var m map[string]*string
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("pgcache: hstore JSON: %w", err)
	}
	if m == nil { // JSON null leaves h unchanged, as encoding/json does
		return nil
	}
	*h = HstoreFromMap(m)
	return nil
}

// Value implements driver.Valuer: the text with every key and value quoted,
// as PostgreSQL prints it, which hstore's input function reads back exactly.
// It is formatted from the pairs, not taken from the parsed text: ParseHstore
// accepts pairs out of order and repeated keys, and of a repeated key among
// seven or more pairs the server may keep another one than [Hstore.Lookup]
// reports.
func (h Hstore) Value() (sqldriver.Value, error) { return string(h.h.AppendText(nil)), nil }

var errNullHstore = errors.New("pgcache: cannot scan NULL into *pgcache.Hstore; use *pgcache.NullHstore")

// Errors of a Scan into a nil pointer, which database/sql before Go 1.27
// hands to the Scan method.
var (
	errNilHstore     = errors.New("pgcache: cannot scan into a nil *pgcache.Hstore")
	errNilNullHstore = errors.New("pgcache: cannot scan into a nil *pgcache.NullHstore")
)

// Scan implements sql.Scanner. For a text that pgcache's Rows found in the
// cache it stores the shared value without allocating; otherwise it parses
// the text.
func (h *Hstore) Scan(src any) error {
	if h == nil {
		return errNilHstore
	}
	var text string
	switch v := src.(type) {
	case string:
		if shared, ok := lookupHstore(v); ok {
			h.h = shared
			return nil
		}
		text = v
	case []byte:
		text = string(v)
	case nil:
		return errNullHstore
	default:
		return fmt.Errorf("pgcache: cannot scan %T into *pgcache.Hstore", src)
	}
	parsed, err := decode.ParseHstore(text)
	if err != nil {
		return err
	}
	h.h = parsed
	return nil
}

// Scan implements sql.Scanner; NULL sets Valid to false.
func (n *NullHstore) Scan(src any) error {
	if n == nil {
		return errNilNullHstore
	}
	if src == nil {
		*n = NullHstore{}
		return nil
	}
	if err := n.Hstore.Scan(src); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// Value implements driver.Valuer: nil when not Valid.
func (n NullHstore) Value() (sqldriver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.Hstore.Value()
}

// MarshalJSON writes null when not Valid.
func (n NullHstore) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return n.Hstore.MarshalJSON()
}

// UnmarshalJSON reads null as not Valid.
func (n *NullHstore) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*n = NullHstore{}
		return nil
	}
	if err := n.Hstore.UnmarshalJSON(b); err != nil {
		return err
	}
	n.Valid = true
	return nil
}
