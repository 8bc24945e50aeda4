package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/collation"
	"github.com/calendard/calendard/internal/phpserial"
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
	rows, err := db.sql.QueryContext(ctx, "SELECT post_type, post_status, COUNT(*) FROM "+db.t("posts")+
		" WHERE post_author = ? AND post_status IN ('publish', 'private') GROUP BY post_type, post_status", id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	u.Posts = map[string]calendard.PostCounts{}
	for rows.Next() {
		var typ, status string
		var n int
		if err := rows.Scan(&typ, &status, &n); err != nil {
			return nil, err
		}
		c := u.Posts[typ]
		if status == "publish" {
			c.Publish = n
		} else {
			c.Private = n
		}
		u.Posts[typ] = c
	}
	return u, rows.Err()
}

// CoreUserIDs runs a wp/v2 users collection query as WP_User_Query writes it: the conditions,
// the count, then one page in the asked order.
func (db *DB) CoreUserIDs(ctx context.Context, q calendard.CoreUserQuery) ([]int64, int, error) {
	U := db.t("users")
	var where []string
	var args []any
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	if len(q.Include) > 0 {
		add(U+".ID IN ("+placeholders(len(q.Include))+")", int64Args(q.Include)...)
	}
	if len(q.Exclude) > 0 {
		add(U+".ID NOT IN ("+placeholders(len(q.Exclude))+")", int64Args(q.Exclude)...)
	}
	if len(q.Slugs) > 0 {
		add(U+".user_nicename IN ("+placeholders(len(q.Slugs))+")", stringArgs(q.Slugs)...)
	}
	if len(q.Roles) > 0 {
		// role__in: a meta query on the capabilities usermeta, '"role"' as a substring.
		var ors []string
		for _, role := range q.Roles {
			ors = append(ors, "meta_value LIKE ?")
			args = append(args, "%"+escapeLike(`"`+role+`"`)+"%")
		}
		where = append(where, U+".ID IN (SELECT user_id FROM "+db.t("usermeta")+" WHERE meta_key = '"+db.prefix+"capabilities' AND ("+strings.Join(ors, " OR ")+"))")
	}
	if q.Search != "" {
		var ors []string
		for _, col := range q.SearchColumns {
			if col == "ID" {
				ors = append(ors, U+".ID = ?")
				args = append(args, q.Search)
				continue
			}
			ors = append(ors, U+"."+col+" LIKE ?")
			args = append(args, "%"+escapeLike(q.Search)+"%")
		}
		where = append(where, "("+strings.Join(ors, " OR ")+")")
	}
	if q.AuthorsOnly {
		add(U + ".ID IN (SELECT user_id FROM " + db.t("usermeta") + " WHERE meta_key = '" + db.prefix + "user_level' AND meta_value != '0')")
	}
	if q.PublishedIn != nil {
		add(U+".ID IN (SELECT DISTINCT post_author FROM "+db.t("posts")+" WHERE post_status = 'publish' AND post_type IN ("+
			placeholders(len(q.PublishedIn))+"))", stringArgs(q.PublishedIn)...)
	}
	cond := "1=1"
	if len(where) > 0 {
		cond = strings.Join(where, " AND ")
	}
	var total int
	if err := db.sql.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+U+" WHERE "+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	if q.Limit <= 0 || q.Offset < 0 || q.Offset >= total {
		// A negative offset is no page on either store (MariaDB refuses it, SQLite reads it as 0).
		return nil, total, nil
	}
	dir := " ASC"
	if q.Desc {
		dir = " DESC"
	}
	order := U + ".display_name" + dir
	orderArgs := []any{}
	listed := func(col string, vals []any) {
		var b strings.Builder
		b.WriteString("CASE " + col)
		for i := range vals {
			b.WriteString(" WHEN ? THEN " + strconv.Itoa(i+1))
		}
		b.WriteString(" ELSE 0 END")
		order, orderArgs = b.String(), vals
	}
	switch q.OrderBy {
	case "ID", "user_registered", "user_nicename", "user_email", "user_url", "display_name":
		order = U + "." + q.OrderBy + dir
	case "include":
		if len(q.Include) > 0 {
			listed(U+".ID", int64Args(q.Include))
		}
	case "nicename__in":
		if len(q.Slugs) > 0 {
			listed(U+".user_nicename", stringArgs(q.Slugs))
		}
	}
	if col, text := userTextColumns[q.OrderBy]; text && db.filesortTies() {
		// SQLite compares text by bytes; MariaDB under the tables' collation: sort here.
		ids, err := db.usersByText(ctx, U, cond, col, args, q.Desc)
		if err != nil {
			return nil, 0, err
		}
		end := min(q.Offset+q.Limit, len(ids))
		return ids[q.Offset:end], total, nil
	}
	all := append(append(append([]any(nil), args...), orderArgs...), q.Offset, q.Limit)
	rows, err := db.sql.QueryContext(ctx, "SELECT "+U+".ID FROM "+U+" WHERE "+cond+" ORDER BY "+order+" LIMIT ?, ?", all...)
	if err != nil {
		return nil, 0, err
	}
	ids, err := scanIDs(rows)
	return ids, total, err
}

// CoreUsers loads the public profiles of a page of users in two queries, in the order given.
func (db *DB) CoreUsers(ctx context.Context, ids []int64) ([]*calendard.CoreUser, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := db.sql.QueryContext(ctx, "SELECT ID, user_url, user_nicename, user_email, display_name FROM "+db.t("users")+
		" WHERE ID IN ("+placeholders(len(ids))+")", int64Args(ids)...)
	if err != nil {
		return nil, err
	}
	byID := map[int64]*calendard.CoreUser{}
	for rows.Next() {
		u := &calendard.CoreUser{}
		var url, nicename, email, name nullString
		if err := rows.Scan(&u.ID, &url, &nicename, &email, &name); err != nil {
			rows.Close()
			return nil, err
		}
		u.URL, u.Nicename, u.Email, u.DisplayName = url.String, nicename.String, email.String, name.String
		byID[u.ID] = u
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	meta, err := db.sql.QueryContext(ctx, "SELECT user_id, meta_value FROM "+db.t("usermeta")+" WHERE meta_key = 'description' AND user_id IN ("+
		placeholders(len(ids))+") ORDER BY umeta_id DESC", int64Args(ids)...)
	if err != nil {
		return nil, err
	}
	defer meta.Close()
	for meta.Next() {
		var id int64
		var v nullString
		if err := meta.Scan(&id, &v); err != nil {
			return nil, err
		}
		if u := byID[id]; u != nil {
			u.About = v.String // rows newest first: the first (lowest umeta_id) row is written last
		}
	}
	if err := meta.Err(); err != nil {
		return nil, err
	}
	out := make([]*calendard.CoreUser, 0, len(ids))
	for _, id := range ids {
		if u := byID[id]; u != nil {
			out = append(out, u)
		}
	}
	return out, nil
}

// userTextColumns are the users' text columns a list may be ordered by.
var userTextColumns = map[string]string{"display_name": "display_name", "user_nicename": "user_nicename",
	"user_email": "user_email", "user_url": "user_url"}

// usersByText lists every matching user ordered by a text column under utf8mb4_unicode_520_ci,
// equal keys by ID (MariaDB leaves their order to the plan).
func (db *DB) usersByText(ctx context.Context, U, cond, col string, args []any, desc bool) ([]int64, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT "+U+".ID, "+U+"."+col+" FROM "+U+" WHERE "+cond, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type row struct {
		id  int64
		key string
	}
	var all []row
	for rows.Next() {
		var r row
		var k nullString
		if err := rows.Scan(&r.id, &k); err != nil {
			return nil, err
		}
		r.key = k.String
		all = append(all, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.SliceStable(all, func(i, j int) bool {
		c := collation.Compare(all[i].key, all[j].key)
		if desc {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
		return all[i].id < all[j].id
	})
	ids := make([]int64, len(all))
	for i, r := range all {
		ids[i] = r.id
	}
	return ids, nil
}

// CoreUserEdit loads what the edit context shows of a user: login, registration date, name
// metas, locale, and the roles and capabilities as WP_User::get_role_caps builds them from the
// capabilities usermeta and the {prefix}user_roles option, in their stored order.
func (db *DB) CoreUserEdit(ctx context.Context, id int64) (*calendard.CoreUserEdit, error) {
	u := &calendard.CoreUserEdit{}
	var login, registered nullString
	err := db.sql.QueryRowContext(ctx, "SELECT user_login, user_registered FROM "+db.t("users")+" WHERE ID = ?", id).Scan(&login, &registered)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	u.Login, u.Registered = login.String, registered.String
	capsKey, prefsKey := db.prefix+"capabilities", db.prefix+"persisted_preferences"
	rows, err := db.sql.QueryContext(ctx, "SELECT meta_key, meta_value FROM "+db.t("usermeta")+
		" WHERE user_id = ? AND meta_key IN ('first_name', 'last_name', 'nickname', 'locale', ?, ?) ORDER BY umeta_id", id, capsKey, prefsKey)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	meta := map[string]string{}
	for rows.Next() {
		var k, v nullString
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		if _, seen := meta[k.String]; !seen { // get_user_meta(single): the first row
			meta[k.String] = v.String
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	u.FirstName, u.LastName, u.Nickname, u.Locale, u.Preferences = meta["first_name"], meta["last_name"], meta["nickname"], meta["locale"], meta[prefsKey]
	opts, err := db.Options(ctx, db.prefix+"user_roles", "WPLANG")
	if err != nil {
		return nil, err
	}
	// get_user_locale: the user's locale, else get_locale (the WPLANG option, else en_US).
	if u.Locale == "" {
		u.Locale = opts["WPLANG"]
	}
	if u.Locale == "" {
		u.Locale = "en_US"
	}
	rv, _ := phpserial.Unmarshal(opts[db.prefix+"user_roles"])
	roles, _ := rv.(*phpserial.Array)
	cv, _ := phpserial.Unmarshal(meta[capsKey])
	caps, _ := cv.(*phpserial.Array)
	if caps == nil {
		return u, nil
	}
	var all []calendard.KV
	set := func(k string, v any) { // array_merge over string keys: an existing key keeps its place
		for i := range all {
			if all[i].Key == k {
				all[i].Value = v
				return
			}
		}
		all = append(all, calendard.KV{Key: k, Value: v})
	}
	for _, e := range caps.Entries() {
		k := fmt.Sprint(e.Key)
		u.Caps = append(u.Caps, calendard.KV{Key: k, Value: e.Value})
		if roles == nil {
			continue
		}
		def, ok := roles.Get(k)
		if !ok {
			continue
		}
		u.Roles = append(u.Roles, k)
		if d, isArr := def.(*phpserial.Array); isArr {
			if rc, _ := d.Get("capabilities"); rc != nil {
				if rcs, isArr := rc.(*phpserial.Array); isArr {
					for _, ce := range rcs.Entries() {
						set(fmt.Sprint(ce.Key), ce.Value)
					}
				}
			}
		}
	}
	for _, c := range u.Caps {
		set(c.Key, c.Value)
	}
	u.AllCaps = all
	return u, nil
}
