package wpdb

import (
	"context"
	"fmt"
	"strings"
)

// The WordPress tables calendard reads and writes (WordPress 6.9's schema.php, and The Events
// Calendar's custom tables), described once and rendered as MySQL DDL (what WordPress runs) or its
// SQLite equivalent.

type column struct {
	name string
	// typ is the MySQL type; the SQLite type follows from it (integers, text, dates as text).
	typ string
	// def is the DEFAULT clause value as SQL ("" for none), null whether NULL is allowed.
	def  string
	null bool
	auto bool // AUTO_INCREMENT primary key
}

type index struct {
	name   string
	cols   []string
	unique bool
}

type table struct {
	name    string
	cols    []column
	primary []string
	indexes []index
}

func col(name, typ, def string) column     { return column{name: name, typ: typ, def: def} }
func nullCol(name, typ, def string) column { return column{name: name, typ: typ, def: def, null: true} }
func autoID(name string) column            { return column{name: name, typ: "bigint(20) unsigned", auto: true} }

// Tables lists the schema, in creation order.
var Tables = []table{
	{name: "options", cols: []column{autoID("option_id"), col("option_name", "varchar(191)", "''"),
		col("option_value", "longtext", ""), col("autoload", "varchar(20)", "'yes'")},
		primary: []string{"option_id"},
		indexes: []index{{"option_name", []string{"option_name"}, true}, {"autoload", []string{"autoload"}, false}}},
	{name: "users", cols: []column{autoID("ID"), col("user_login", "varchar(60)", "''"), col("user_pass", "varchar(255)", "''"),
		col("user_nicename", "varchar(50)", "''"), col("user_email", "varchar(100)", "''"), col("user_url", "varchar(100)", "''"),
		col("user_registered", "datetime", "'0000-00-00 00:00:00'"), col("user_activation_key", "varchar(255)", "''"),
		col("user_status", "int(11)", "0"), col("display_name", "varchar(250)", "''")},
		primary: []string{"ID"},
		indexes: []index{{"user_login_key", []string{"user_login"}, false}, {"user_nicename", []string{"user_nicename"}, false},
			{"user_email", []string{"user_email"}, false}}},
	{name: "usermeta", cols: []column{autoID("umeta_id"), col("user_id", "bigint(20) unsigned", "0"),
		nullCol("meta_key", "varchar(255)", "NULL"), nullCol("meta_value", "longtext", "NULL")},
		primary: []string{"umeta_id"},
		indexes: []index{{"user_id", []string{"user_id"}, false}, {"meta_key", []string{"meta_key"}, false}}},
	{name: "posts", cols: []column{autoID("ID"), col("post_author", "bigint(20) unsigned", "0"),
		col("post_date", "datetime", "'0000-00-00 00:00:00'"), col("post_date_gmt", "datetime", "'0000-00-00 00:00:00'"),
		col("post_content", "longtext", ""), col("post_title", "text", ""), col("post_excerpt", "text", ""),
		col("post_status", "varchar(20)", "'publish'"), col("comment_status", "varchar(20)", "'open'"),
		col("ping_status", "varchar(20)", "'open'"), col("post_password", "varchar(255)", "''"),
		col("post_name", "varchar(200)", "''"), col("to_ping", "text", ""), col("pinged", "text", ""),
		col("post_modified", "datetime", "'0000-00-00 00:00:00'"), col("post_modified_gmt", "datetime", "'0000-00-00 00:00:00'"),
		col("post_content_filtered", "longtext", ""), col("post_parent", "bigint(20) unsigned", "0"),
		col("guid", "varchar(255)", "''"), col("menu_order", "int(11)", "0"), col("post_type", "varchar(20)", "'post'"),
		col("post_mime_type", "varchar(100)", "''"), col("comment_count", "bigint(20)", "0")},
		primary: []string{"ID"},
		indexes: []index{{"post_name", []string{"post_name"}, false},
			{"type_status_date", []string{"post_type", "post_status", "post_date", "ID"}, false},
			{"post_parent", []string{"post_parent"}, false}, {"post_author", []string{"post_author"}, false},
			{"type_status_author", []string{"post_type", "post_status", "post_author"}, false}}},
	{name: "postmeta", cols: []column{autoID("meta_id"), col("post_id", "bigint(20) unsigned", "0"),
		nullCol("meta_key", "varchar(255)", "NULL"), nullCol("meta_value", "longtext", "NULL")},
		primary: []string{"meta_id"},
		indexes: []index{{"post_id", []string{"post_id"}, false}, {"meta_key", []string{"meta_key"}, false}}},
	{name: "terms", cols: []column{autoID("term_id"), col("name", "varchar(200)", "''"), col("slug", "varchar(200)", "''"),
		col("term_group", "bigint(10)", "0")},
		primary: []string{"term_id"},
		indexes: []index{{"slug", []string{"slug"}, false}, {"name", []string{"name"}, false}}},
	{name: "term_taxonomy", cols: []column{autoID("term_taxonomy_id"), col("term_id", "bigint(20) unsigned", "0"),
		col("taxonomy", "varchar(32)", "''"), col("description", "longtext", ""), col("parent", "bigint(20) unsigned", "0"),
		col("count", "bigint(20)", "0")},
		primary: []string{"term_taxonomy_id"},
		indexes: []index{{"term_id_taxonomy", []string{"term_id", "taxonomy"}, true}, {"taxonomy", []string{"taxonomy"}, false}}},
	{name: "term_relationships", cols: []column{col("object_id", "bigint(20) unsigned", "0"),
		col("term_taxonomy_id", "bigint(20) unsigned", "0"), col("term_order", "int(11)", "0")},
		primary: []string{"object_id", "term_taxonomy_id"},
		indexes: []index{{"term_taxonomy_id", []string{"term_taxonomy_id"}, false}}},
	{name: "termmeta", cols: []column{autoID("meta_id"), col("term_id", "bigint(20) unsigned", "0"),
		nullCol("meta_key", "varchar(255)", "NULL"), nullCol("meta_value", "longtext", "NULL")},
		primary: []string{"meta_id"},
		indexes: []index{{"term_id", []string{"term_id"}, false}, {"meta_key", []string{"meta_key"}, false}}},
	{name: "tec_events", cols: []column{autoID("event_id"), col("post_id", "bigint(20) unsigned", ""),
		col("start_date", "varchar(19)", ""), nullCol("end_date", "varchar(19)", "NULL"), col("timezone", "varchar(30)", "'UTC'"),
		col("start_date_utc", "varchar(19)", ""), nullCol("end_date_utc", "varchar(19)", "NULL"),
		nullCol("duration", "mediumint(30)", "7200"), nullCol("updated_at", "timestamp", "CURRENT_TIMESTAMP"),
		col("hash", "varchar(40)", "")},
		primary: []string{"event_id"},
		indexes: []index{{"post_id", []string{"post_id"}, true}}},
	{name: "tec_occurrences", cols: []column{autoID("occurrence_id"), col("event_id", "bigint(20) unsigned", ""),
		col("post_id", "bigint(20) unsigned", ""), col("start_date", "datetime", ""), col("start_date_utc", "datetime", ""),
		col("end_date", "datetime", ""), col("end_date_utc", "datetime", ""), nullCol("duration", "mediumint(30)", "7200"),
		col("hash", "varchar(40)", ""), nullCol("updated_at", "timestamp", "CURRENT_TIMESTAMP")},
		primary: []string{"occurrence_id"},
		indexes: []index{{"hash", []string{"hash"}, true}, {"event_id", []string{"event_id"}, false},
			{"idx_tec_occurrences_post_id_dates", []string{"post_id", "end_date", "start_date"}, false},
			{"idx_tec_occurrences_post_id_dates_utc", []string{"post_id", "end_date_utc", "start_date_utc"}, false}}},
}

// isAuto reports whether the named column is an auto-increment one.
func (tb table) isAuto(name string) bool {
	for _, c := range tb.cols {
		if c.name == name {
			return c.auto
		}
	}
	return false
}

// prefixIndexed are MySQL text keys WordPress limits to a 191-character prefix (utf8mb4 key size).
var prefixIndexed = map[string]bool{"post_name": true, "meta_key": true, "slug": true, "name": true}

// createTableSQL renders one table for the store's dialect.
func (db *DB) createTableSQL(tb table) []string {
	name := db.t(tb.name)
	var lines []string
	for _, c := range tb.cols {
		lines = append(lines, "  "+db.columnSQL(c))
	}
	if db.dialect == SQLite {
		// An auto-increment column is its own PRIMARY KEY (columnSQL); any other key is declared.
		if len(tb.primary) > 1 || (len(tb.primary) == 1 && !tb.isAuto(tb.primary[0])) {
			lines = append(lines, "  PRIMARY KEY ("+strings.Join(tb.primary, ", ")+")")
		}
		stmts := []string{"CREATE TABLE IF NOT EXISTS " + name + " (\n" + strings.Join(lines, ",\n") + "\n)"}
		for _, ix := range tb.indexes {
			u := ""
			if ix.unique {
				u = "UNIQUE "
			}
			// SQLite index names are global: they carry the table's name.
			stmts = append(stmts, "CREATE "+u+"INDEX IF NOT EXISTS "+name+"_"+ix.name+" ON "+name+" ("+strings.Join(ix.cols, ", ")+")")
		}
		return stmts
	}
	lines = append(lines, "  PRIMARY KEY ("+strings.Join(tb.primary, ",")+")")
	for _, ix := range tb.indexes {
		kind := "KEY"
		if ix.unique {
			kind = "UNIQUE KEY"
		}
		cols := make([]string, len(ix.cols))
		for i, c := range ix.cols {
			cols[i] = c
			if prefixIndexed[c] && !ix.unique && len(ix.cols) == 1 && tb.name != "options" {
				cols[i] = c + "(191)"
			}
		}
		lines = append(lines, "  "+kind+" "+ix.name+" ("+strings.Join(cols, ",")+")")
	}
	return []string{"CREATE TABLE IF NOT EXISTS " + name + " (\n" + strings.Join(lines, ",\n") +
		"\n) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci"}
}

func (db *DB) columnSQL(c column) string {
	if db.dialect == SQLite {
		if c.auto {
			return c.name + " INTEGER PRIMARY KEY AUTOINCREMENT"
		}
		typ := "TEXT COLLATE " + CollationName
		switch {
		case strings.Contains(c.typ, "int"):
			typ = "INTEGER"
		case c.typ == "datetime" || c.typ == "timestamp":
			// Stored as MySQL writes them ("2026-01-02 03:04:05"), compared as text.
			typ = "TEXT"
		}
		return c.name + " " + typ + nullSQL(c) + defaultSQL(c) + strictCheck(c)
	}
	if c.auto {
		return c.name + " " + c.typ + " NOT NULL AUTO_INCREMENT"
	}
	return c.name + " " + c.typ + nullSQL(c) + defaultSQL(c)
}

func nullSQL(c column) string {
	if c.null {
		return ""
	}
	return " NOT NULL"
}

func defaultSQL(c column) string {
	if c.def == "" {
		return ""
	}
	return " DEFAULT " + c.def
}

// SchemaSQL is the DDL that creates the calendar's tables on this store.
func (db *DB) SchemaSQL() []string {
	var out []string
	for _, tb := range Tables {
		out = append(out, db.createTableSQL(tb)...)
	}
	return out
}

// CreateTables creates the tables that do not exist yet; existing tables and rows are left alone.
func (db *DB) CreateTables(ctx context.Context) error {
	for _, stmt := range db.SchemaSQL() {
		if _, err := db.sql.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("creating tables: %w", err)
		}
	}
	return nil
}

// strictCheck is the SQLite CHECK constraint refusing what MySQL's strict mode (STRICT_TRANS_TABLES,
// the server default calendard runs with) refuses for the column's MySQL type: text longer than a
// VARCHAR's characters or a TEXT's 65,535 bytes, integers outside the type's range. The statement
// then fails on both stores alike.
func strictCheck(c column) string {
	typ := c.typ
	if n, ok := strings.CutPrefix(typ, "varchar("); ok {
		return fmt.Sprintf(" CHECK (length(%s) <= %s)", c.name, strings.TrimSuffix(n, ")"))
	}
	base, _, _ := strings.Cut(typ, "(")
	unsigned := strings.HasSuffix(typ, " unsigned")
	switch {
	case typ == "text":
		return fmt.Sprintf(" CHECK (length(CAST(%s AS BLOB)) <= 65535)", c.name)
	case unsigned:
		return fmt.Sprintf(" CHECK (%s >= 0)", c.name)
	case base == "int":
		return fmt.Sprintf(" CHECK (%s BETWEEN -2147483648 AND 2147483647)", c.name)
	case base == "mediumint":
		return fmt.Sprintf(" CHECK (%s BETWEEN -8388608 AND 8388607)", c.name)
	}
	return ""
}
