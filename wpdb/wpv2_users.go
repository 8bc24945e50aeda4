package wpdb

import (
	"context"
	"database/sql"
	"errors"

	"github.com/calendard/calendard"
)

// CoreUser loads a user's public profile and the count of their published posts.
func (db *DB) CoreUser(ctx context.Context, id int64) (*calendard.CoreUser, error) {
	u := &calendard.CoreUser{ID: id}
	var url, nicename, email, name nullString
	err := db.sql.QueryRowContext(ctx, "SELECT user_url, user_nicename, user_email, display_name FROM "+db.t("users")+" WHERE ID = ?", id).
		Scan(&url, &nicename, &email, &name)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	u.URL, u.Nicename, u.Email, u.DisplayName = url.String, nicename.String, email.String, name.String
	var about nullString
	err = db.sql.QueryRowContext(ctx, "SELECT meta_value FROM "+db.t("usermeta")+" WHERE user_id = ? AND meta_key = 'description' ORDER BY umeta_id LIMIT 1", id).Scan(&about)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	u.About = about.String
	err = db.sql.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+db.t("posts")+" WHERE post_author = ? AND post_status = 'publish' AND post_type <> 'revision'", id).Scan(&u.PublishedPosts)
	return u, err
}
