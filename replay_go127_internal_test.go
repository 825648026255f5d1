//go:build go1.27

package pgcache

import (
	sqldriver "database/sql/driver"
	"io"
)

func init() {
	replayReaders = append(replayReaders, struct {
		name string
		read func(r *Rows) error
	}{"NextRow", func(r *Rows) error {
		// Every column into *any, as database/sql scans for such a
		// destination: the one whose values every table serves.
		var v any
		for {
			if err := r.NextRow(); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
			for i := range r.cols {
				if err := r.ScanColumn(sqldriver.ScanContext{}, i, &v); err != nil {
					return err
				}
			}
		}
	}})
}
