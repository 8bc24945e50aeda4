package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/phpserial"
	"github.com/calendard/calendard/internal/wpauth"
)

// userByField loads a user and the usermeta authentication needs. The comparison runs in SQL so the
// column collation decides (case-insensitive, trailing spaces ignored on MySQL), as in WordPress.
// It reads the primary, never a replica: an application password created in WordPress a moment ago
// must work at once, and calendard cannot know the position of a write it did not make.
func (db *DB) userByField(ctx context.Context, field string, value any) (*calendard.UserRecord, error) {
	u := &calendard.UserRecord{}
	err := db.sql.primary().QueryRowContext(ctx, "SELECT ID, user_login, user_email, user_pass FROM "+db.t("users")+
		" WHERE "+field+" = ? ORDER BY ID LIMIT 1", value).Scan(&u.ID, &u.Login, &u.Email, &u.Pass)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rows, err := db.sql.primary().QueryContext(ctx, "SELECT meta_key, meta_value FROM "+db.t("usermeta")+
		" WHERE user_id = ? AND meta_key IN (?, '_application_passwords', 'session_tokens') ORDER BY umeta_id", u.ID, db.prefix+"capabilities")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v nullString
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		switch k.String {
		case "_application_passwords":
			u.AppPasswords = v.String
		case "session_tokens":
			u.SessionTokens = v.String
		default:
			u.CapsMeta = v.String
		}
	}
	return u, rows.Err()
}

// UserByLogin finds a user by (already sanitized) login.
func (db *DB) UserByLogin(ctx context.Context, login string) (*calendard.UserRecord, error) {
	if login == "" {
		return nil, nil
	}
	return db.userByField(ctx, "user_login", login)
}

// UserByEmail finds a user by e-mail.
func (db *DB) UserByEmail(ctx context.Context, email string) (*calendard.UserRecord, error) {
	if email == "" {
		return nil, nil
	}
	return db.userByField(ctx, "user_email", email)
}

// UserByID finds a user by ID.
func (db *DB) UserByID(ctx context.Context, id int64) (*calendard.UserRecord, error) {
	return db.userByField(ctx, "ID", id)
}

// RecordAppPasswordUsage writes last_used/last_ip of an application password at most once a day,
// rewriting the one usermeta row in place like core. The read-modify-write runs in a transaction
// with the row locked so concurrent first uses of the day do not lose other entries.
//
// The row is read first without a transaction: on most requests nothing changes, and on SQLite a
// transaction takes the database's one write lock.
func (db *DB) RecordAppPasswordUsage(ctx context.Context, userID int64, uuid, ip string, now time.Time) error {
	var value nullString
	err := db.sql.primary().QueryRowContext(ctx, "SELECT meta_value FROM "+db.t("usermeta")+
		" WHERE user_id = ? AND meta_key = '_application_passwords' ORDER BY umeta_id LIMIT 1", userID).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, changed, err := wpauth.RecordAppPasswordUsage(value.String, uuid, now.Unix(), ip); err != nil || !changed {
		return nil
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	defer db.boundBusyWait(ctx, conn)()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var id int64
	err = tx.QueryRowContext(ctx, "SELECT umeta_id, meta_value FROM "+db.t("usermeta")+
		" WHERE user_id = ? AND meta_key = '_application_passwords' ORDER BY umeta_id LIMIT 1"+db.forUpdate(), userID).Scan(&id, &value)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	updated, changed, err := wpauth.RecordAppPasswordUsage(value.String, uuid, now.Unix(), ip)
	if err != nil || !changed {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "UPDATE "+db.t("usermeta")+" SET meta_value = ? WHERE umeta_id = ?", updated, id); err != nil {
		return err
	}
	return tx.Commit()
}

// UserSummary is one user as `calendard user list` shows it.
type UserSummary struct {
	ID                                    int64
	Login, Email, DisplayName, Registered string
	// Roles are the keys the prefixed capabilities usermeta grants (the user's roles, in order).
	Roles []string
	// AppPasswords is the number of application passwords.
	AppPasswords int
}

// ListUsers returns every user in ID order.
func (db *DB) ListUsers(ctx context.Context) ([]UserSummary, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT u.ID, u.user_login, u.user_email, u.display_name, u.user_registered, "+
		"(SELECT meta_value FROM "+db.t("usermeta")+" m WHERE m.user_id = u.ID AND m.meta_key = ? ORDER BY umeta_id LIMIT 1), "+
		"(SELECT meta_value FROM "+db.t("usermeta")+" m WHERE m.user_id = u.ID AND m.meta_key = '_application_passwords' ORDER BY umeta_id LIMIT 1) "+
		"FROM "+db.t("users")+" u ORDER BY u.ID", db.prefix+"capabilities")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []UserSummary
	for rows.Next() {
		var u UserSummary
		var caps, apps nullString
		if err := rows.Scan(&u.ID, &u.Login, &u.Email, &u.DisplayName, &u.Registered, &caps, &apps); err != nil {
			return nil, err
		}
		if v, err := phpserial.Unmarshal(caps.String); err == nil {
			if a, ok := v.(*phpserial.Array); ok {
				for _, e := range a.Entries() {
					if k, ok := e.Key.(string); ok && phpserial.ToBool(e.Value) {
						u.Roles = append(u.Roles, k)
					}
				}
			}
		}
		entries, _ := wpauth.ParseAppPasswords(apps.String)
		u.AppPasswords = len(entries)
		out = append(out, u)
	}
	return out, rows.Err()
}

// UpdateAppPasswords rewrites a user's `_application_passwords` usermeta with what update makes of
// the current value ("" when there is none), in a transaction with the row locked, as
// RecordAppPasswordUsage does. inUse also sets the using_application_passwords option WordPress
// sets when a first application password is created.
func (db *DB) UpdateAppPasswords(ctx context.Context, userID int64, inUse bool, update func(old string) (string, error)) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var id int64
	var value nullString
	err = tx.QueryRowContext(ctx, "SELECT umeta_id, meta_value FROM "+db.t("usermeta")+
		" WHERE user_id = ? AND meta_key = '_application_passwords' ORDER BY umeta_id LIMIT 1"+db.forUpdate(), userID).Scan(&id, &value)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	updated, err := update(value.String)
	if err != nil {
		return err
	}
	if id != 0 {
		_, err = tx.ExecContext(ctx, "UPDATE "+db.t("usermeta")+" SET meta_value = ? WHERE umeta_id = ?", updated, id)
	} else {
		_, err = tx.ExecContext(ctx, "INSERT INTO "+db.t("usermeta")+" (user_id, meta_key, meta_value) VALUES (?, '_application_passwords', ?)", userID, updated)
	}
	if err != nil {
		return err
	}
	if inUse {
		var cur nullString
		err := tx.QueryRowContext(ctx, "SELECT option_value FROM "+db.t("options")+" WHERE option_name = 'using_application_passwords'").Scan(&cur)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			_, err = tx.ExecContext(ctx, "INSERT INTO "+db.t("options")+" (option_name, option_value, autoload) VALUES ('using_application_passwords', '1', 'yes')")
		case err == nil && !phpserial.ToBool(cur.String):
			_, err = tx.ExecContext(ctx, "UPDATE "+db.t("options")+" SET option_value = '1' WHERE option_name = 'using_application_passwords'")
		}
		if err != nil {
			return err
		}
	}
	return tx.Commit()
}
