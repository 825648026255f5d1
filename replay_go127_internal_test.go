//go:build go1.27

package pgcache

import "io"

func init() {
	replayReaders = append(replayReaders, struct {
		name string
		read func(r *Rows) error
	}{"NextRow", func(r *Rows) error {
		for {
			if err := r.NextRow(); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
	}})
}
