package wpdb

import (
	"context"
	"database/sql"
	"errors"
)

// Option returns an option's raw value inside the transaction, and whether it exists.
func (t *Tx) Option(ctx context.Context, name string) (string, bool, error) {
	var v string
	err := t.tx.QueryRowContext(ctx, "SELECT option_value FROM "+t.t("options")+" WHERE option_name = ?", name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return v, err == nil, err
}

// UpdateOption is update_option's write: the row's value replaced, or a new row (autoload "auto",
// add_option's default since WordPress 6.6) when there is none. Every cache learns of it after commit.
func (t *Tx) UpdateOption(ctx context.Context, name, value string) error {
	t.optionsChanged = true
	res, err := t.exec(ctx, "UPDATE "+t.t("options")+" SET option_value = ? WHERE option_name = ?", value, name)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return err
	}
	if _, ok, err := t.Option(ctx, name); err != nil || ok {
		return err // MySQL counts an unchanged row as not affected
	}
	_, err = t.exec(ctx, "INSERT INTO "+t.t("options")+" (option_name, option_value, autoload) VALUES (?, ?, 'auto')", name, value)
	return err
}

// DeleteOption is delete_option.
func (t *Tx) DeleteOption(ctx context.Context, name string) error {
	t.optionsChanged = true
	_, err := t.exec(ctx, "DELETE FROM "+t.t("options")+" WHERE option_name = ?", name)
	return err
}
