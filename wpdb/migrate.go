package wpdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/calendard/calendard/internal/wpauth"
)

// MigrateOptions are the settings a new calendar starts with.
type MigrateOptions struct {
	SiteURL    string // home and siteurl, e.g. "http://127.0.0.1:8080"
	Timezone   string // timezone_string, e.g. "UTC" or "Europe/Berlin"
	SiteName   string
	AdminLogin string
	AdminEmail string
}

// MigrateResult says what Migrate did.
type MigrateResult struct {
	AddedOptions []string
	// AddedIndexes are the indexes calendard added where WordPress has none (calendardIndexes).
	AddedIndexes []string
	// AdminLogin and AppPassword are set when Migrate created the administrator (the password is
	// shown once and only its hash is stored).
	AdminLogin  string
	AppPassword string
}

// Migrate prepares an empty database for calendard: it creates the missing tables and, on a site
// that is not installed yet (no siteurl option), the options calendard needs and an administrator
// with an application password. It is idempotent and never changes existing rows: on an existing
// WordPress install it adds nothing but missing tables (e.g. the plugin's tec_* tables).
func (db *DB) Migrate(ctx context.Context, o MigrateOptions, now time.Time) (*MigrateResult, error) {
	if err := db.CreateTables(ctx); err != nil {
		return nil, err
	}
	added, err := db.addIndexes(ctx)
	if err != nil {
		return nil, err
	}
	// The sync journal is calendard's own: created, with its baseline, on every store.
	if err := db.EnsureSyncJournal(ctx); err != nil {
		return nil, err
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	res := &MigrateResult{AddedIndexes: added}
	// An installed WordPress (it has a siteurl) keeps its options and users as they are.
	var installed int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+db.t("options")+" WHERE option_name = 'siteurl'").Scan(&installed); err != nil {
		return nil, err
	}
	if installed > 0 {
		return res, tx.Commit()
	}
	for _, opt := range defaultOptions(o) {
		added, err := db.addOption(ctx, tx, opt[0], opt[1])
		if err != nil {
			return nil, err
		}
		if added {
			res.AddedOptions = append(res.AddedOptions, opt[0])
		}
	}
	var users int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+db.t("users")).Scan(&users); err != nil {
		return nil, err
	}
	if users == 0 {
		pw, err := db.createAdmin(ctx, tx, o, now)
		if err != nil {
			return nil, err
		}
		res.AdminLogin, res.AppPassword = o.AdminLogin, pw
	}
	return res, tx.Commit()
}

// defaultOptions are the options of a fresh WordPress with The Events Calendar, as calendard reads them.
func defaultOptions(o MigrateOptions) [][2]string {
	return [][2]string{
		{"siteurl", o.SiteURL}, {"home", o.SiteURL}, {"blogname", o.SiteName}, {"blogdescription", ""},
		{"admin_email", o.AdminEmail}, {"blog_charset", "UTF-8"}, {"timezone_string", o.Timezone}, {"gmt_offset", "0"},
		{"permalink_structure", "/%postname%/"}, {"posts_per_page", "10"}, {"date_format", "F j, Y"}, {"time_format", "g:i a"},
		{"default_role", "subscriber"}, {"db_version", "60717"}, {"initial_db_version", "60717"},
		{"using_application_passwords", "1"}, {"wp_user_roles", defaultUserRoles},
		{"tribe_events_calendar_options", `a:2:{s:8:"did_init";b:1;s:14:"schema-version";s:6:"6.17.2";}`},
		// The custom tables are in use from the start (TEC's state for a site with nothing to migrate).
		{"tec_ct1_migration_state", `a:3:{s:18:"complete_timestamp";N;s:5:"phase";s:22:"migration-not-required";s:19:"preview_unsupported";b:0;}`},
	}
}

// addOption inserts an option unless one of that name exists; it reports whether it did.
func (db *DB) addOption(ctx context.Context, tx *sql.Tx, name, value string) (bool, error) {
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+db.t("options")+" WHERE option_name = ?", name).Scan(&n); err != nil {
		return false, err
	}
	if n > 0 {
		return false, nil
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO "+db.t("options")+" (option_name, option_value, autoload) VALUES (?, ?, 'yes')", name, value)
	return err == nil, err
}

// createAdmin adds the administrator (a random, unused login password) and an application password,
// which it returns in plaintext.
func (db *DB) createAdmin(ctx context.Context, tx *sql.Tx, o MigrateOptions, now time.Time) (string, error) {
	secret := make([]byte, 24)
	if _, err := rand.Read(secret); err != nil {
		return "", err
	}
	hash, err := wpauth.HashPassword(base64.RawURLEncoding.EncodeToString(secret))
	if err != nil {
		return "", err
	}
	res, err := tx.ExecContext(ctx, "INSERT INTO "+db.t("users")+` (user_login, user_pass, user_nicename, user_email,
		user_url, user_registered, user_activation_key, user_status, display_name) VALUES (?, ?, ?, ?, '', ?, '', 0, ?)`,
		o.AdminLogin, hash, o.AdminLogin, o.AdminEmail, now.UTC().Format("2006-01-02 15:04:05"), o.AdminLogin)
	if err != nil {
		return "", err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return "", err
	}
	apps, plaintext, _, err := wpauth.NewAppPasswordEntry("", "calendard", now.Unix())
	if err != nil {
		return "", err
	}
	for _, kv := range [][2]string{
		{"nickname", o.AdminLogin}, {db.prefix + "capabilities", `a:1:{s:13:"administrator";b:1;}`},
		{db.prefix + "user_level", "10"}, {"_application_passwords", apps},
	} {
		if _, err := tx.ExecContext(ctx, "INSERT INTO "+db.t("usermeta")+" (user_id, meta_key, meta_value) VALUES (?, ?, ?)", id, kv[0], kv[1]); err != nil {
			return "", fmt.Errorf("administrator meta: %w", err)
		}
	}
	return wpauth.ChunkAppPassword(plaintext), nil
}

// calendardIndexes are indexes calendard adds where WordPress has none. They are additive: neither
// WordPress nor the plugin needs or minds them. post_modified_gmt turns the change feed's watermark
// (MAX(post_modified_gmt), read every second) from a scan of the whole posts table into an index
// read.
//
// listkeys (embedded store only) holds the event list keys the event index reads at every first
// start, with their values, so that read comes from the index alone instead of moving from the
// meta_key index to a table row for each. It is partial: it holds those rows only (a small part of
// the file). MariaDB cannot hold a LONGTEXT in an index.
// listposts (embedded store only) is the same for the event posts' own keys: a partial index of the
// events alone, read instead of a table row per event (InnoDB keeps rows in its primary key, so
// MariaDB needs neither).
var calendardIndexes = []struct {
	table, name string
	cols        []string
	where       string // a partial index's condition (SQLite only)
	sqliteOnly  bool
}{
	{table: "posts", name: "calendard_modified_gmt", cols: []string{"post_modified_gmt"}},
	{table: "postmeta", name: "calendard_listkeys", cols: []string{"meta_key COLLATE BINARY", "post_id", "meta_id", "meta_value"},
		where: listKeysCond, sqliteOnly: true},
	{table: "postmeta", name: "calendard_listkeys_other", cols: []string{"post_id"}, where: otherSpellingCond, sqliteOnly: true},
	{table: "posts", name: "calendard_listposts", cols: []string{"ID", "post_status", "post_date", "post_parent", "post_password"},
		where: eventPostsCond, sqliteOnly: true},
}

// missingIndex is a calendardIndexes entry the store lacks: its name as reported and its DDL.
type missingIndex struct{ name, ddl string }

// missingIndexes lists the calendardIndexes the store lacks, with the statements that add them. On
// MySQL the index is built in place without locking the table (InnoDB online DDL).
func (db *DB) missingIndexes(ctx context.Context) ([]missingIndex, error) {
	var out []missingIndex
	for _, ix := range calendardIndexes {
		table := db.t(ix.table)
		if db.dialect == SQLite {
			name := table + "_" + ix.name
			if ok, err := db.sqliteHasIndex(ctx, db.sql, name); err != nil {
				return nil, err
			} else if ok {
				continue
			}
			where := ""
			if ix.where != "" {
				where = " WHERE " + ix.where
			}
			out = append(out, missingIndex{name, "CREATE INDEX IF NOT EXISTS " + name + " ON " + table + " (" + strings.Join(ix.cols, ", ") + ")" + where})
			continue
		}
		if ix.sqliteOnly {
			continue
		}
		var n int
		if err := db.sql.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = ?",
			table, ix.name).Scan(&n); err != nil {
			return nil, err
		}
		if n > 0 {
			continue
		}
		out = append(out, missingIndex{table + "." + ix.name,
			"ALTER TABLE " + table + " ADD INDEX " + ix.name + " (" + strings.Join(ix.cols, ",") + "), ALGORITHM=INPLACE, LOCK=NONE"})
	}
	return out, nil
}

// addIndexes creates the calendardIndexes that are missing and returns their names.
func (db *DB) addIndexes(ctx context.Context) ([]string, error) {
	missing, err := db.missingIndexes(ctx)
	if err != nil {
		return nil, err
	}
	var added []string
	for _, ix := range missing {
		if _, err := db.sql.ExecContext(ctx, ix.ddl); err != nil {
			return nil, err
		}
		added = append(added, ix.name)
	}
	return added, nil
}

// MigratePlan is what Migrate would do to the store as it is now.
type MigratePlan struct {
	Tables  []string // tables it would create
	Indexes []string // calendardIndexes it would add (as MigrateResult.AddedIndexes names them)
	Options []string // options it would add (none on an installed site)
	// Admin is the login of the administrator it would create, with an application password ("":
	// none, the site has users or is installed).
	Admin string
}

// PlanMigrate reports what Migrate(ctx, o, …) would create or add, reading only: it changes no
// row and runs no DDL.
func (db *DB) PlanMigrate(ctx context.Context, o MigrateOptions) (*MigratePlan, error) {
	plan := &MigratePlan{}
	exists := map[string]bool{}
	for _, tb := range Tables {
		ok, err := db.tablesExist(ctx, db.sql, db.t(tb.name))
		if err != nil {
			return nil, err
		}
		exists[tb.name] = ok
		if !ok {
			plan.Tables = append(plan.Tables, db.t(tb.name))
		}
	}
	// A missing table is created with WordPress' indexes; calendard's own come after it.
	for _, ix := range calendardIndexes {
		if !exists[ix.table] && !(ix.sqliteOnly && db.dialect != SQLite) {
			name := db.t(ix.table) + "." + ix.name
			if db.dialect == SQLite {
				name = db.t(ix.table) + "_" + ix.name
			}
			plan.Indexes = append(plan.Indexes, name)
		}
	}
	if exists["posts"] && exists["postmeta"] {
		missing, err := db.missingIndexes(ctx)
		if err != nil {
			return nil, err
		}
		for _, ix := range missing {
			plan.Indexes = append(plan.Indexes, ix.name)
		}
	}
	present := map[string]bool{}
	if exists["options"] {
		rows, err := db.sql.QueryContext(ctx, "SELECT option_name FROM "+db.t("options")+" WHERE option_name IN ("+
			placeholders(len(defaultOptions(o)))+")", stringArgs(optionNames(o))...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return nil, err
			}
			present[n] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	if present["siteurl"] {
		return plan, nil // installed: options and users are left as they are
	}
	for _, n := range optionNames(o) {
		if !present[n] {
			plan.Options = append(plan.Options, n)
		}
	}
	users := 0
	if exists["users"] {
		if err := db.sql.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+db.t("users")).Scan(&users); err != nil {
			return nil, err
		}
	}
	if users == 0 {
		plan.Admin = o.AdminLogin
	}
	return plan, nil
}

func optionNames(o MigrateOptions) []string {
	var out []string
	for _, opt := range defaultOptions(o) {
		out = append(out, opt[0])
	}
	return out
}
