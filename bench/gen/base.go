package gen

import (
	"context"
	"fmt"

	"github.com/calendard/calendard/wpdb"
)

// CopyBase copies a whole WordPress database (every table calendard knows, IDs and counters kept)
// into an empty one with wpdb.CopyCalendar, what `calendard copy` runs: how a SQLite benchmark
// database gets the same base (options, users, media, schema) as the MariaDB one before Generate.
func CopyBase(ctx context.Context, from, to, prefix string) error {
	if prefix == "" {
		prefix = "wp_"
	}
	src, err := wpdb.Open(from, prefix)
	if err != nil {
		return fmt.Errorf("opening %s: %w", from, err)
	}
	defer src.Close()
	dst, err := wpdb.Open(to, prefix)
	if err != nil {
		return fmt.Errorf("opening %s: %w", to, err)
	}
	defer dst.Close()
	_, err = wpdb.CopyCalendar(ctx, src, dst, false, nil)
	return err
}
