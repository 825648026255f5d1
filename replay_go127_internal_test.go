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

func init() {
	valueReaders = append(valueReaders, valueReader{"NextRow", func(r *Rows) ([][]any, error) {
		var rows [][]any
		for {
			if err := r.NextRow(); err != nil {
				if err == io.EOF {
					return rows, nil
				}
				return rows, err
			}
			row := make([]any, len(r.cols))
			for i := range row {
				if err := r.ScanColumn(sqldriver.ScanContext{}, i, &row[i]); err != nil {
					return rows, err
				}
			}
			rows = append(rows, row)
		}
	}})
}
