package wpdb

import (
	"context"
	"database/sql/driver"
	"fmt"

	"github.com/go-sql-driver/mysql"
)

// WordPress takes out of every connection's sql_mode the modes its code is not written for
// (wpdb::set_sql_mode, wpdb::$incompatible_modes): drafts store a zero post_date_gmt, which
// NO_ZERO_DATE refuses, and ONLY_FULL_GROUP_BY and ANSI change what queries mean. MySQL's default
// sql_mode has several of them. calendard takes the same ones out, with one difference: it keeps
// strictness, and sets it where the server lacks it, because it relies on it. A value too long for
// its column is refused, as wpdb's own length check refuses it before MySQL sees it, and as the
// embedded store refuses it (TestStrictLimitsAlike), whatever the server's configuration.
var wpIncompatibleModes = []string{"NO_ZERO_DATE", "ONLY_FULL_GROUP_BY", "STRICT_TRANS_TABLES", "STRICT_ALL_TABLES",
	"TRADITIONAL", "ANSI"}

// setWPSQLMode computes the session's sql_mode on the server, in one round trip: each ",MODE," of
// ",<modes>," becomes ",", then STRICT_TRANS_TABLES is added.
var setWPSQLMode = func() string {
	expr := "CONCAT(',', @@SESSION.sql_mode, ',')"
	for _, m := range wpIncompatibleModes {
		expr = fmt.Sprintf("REPLACE(%s, ',%s,', ',')", expr, m)
	}
	return "SET SESSION sql_mode = CONCAT_WS(',', NULLIF(TRIM(BOTH ',' FROM " + expr + "), ''), 'STRICT_TRANS_TABLES')"
}()

// wpSessionConnector sets WordPress' sql_mode on every new connection. The connection it returns
// is the driver's own, so deadlineConnector still finds the driver's interfaces on it.
type wpSessionConnector struct{ driver.Connector }

func (c wpSessionConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("setting WordPress' sql_mode: the driver's connection cannot execute")
	}
	if _, err := ex.ExecContext(ctx, setWPSQLMode, nil); err != nil {
		conn.Close()
		return nil, fmt.Errorf("setting WordPress' sql_mode: %w", err)
	}
	return conn, nil
}

// MySQLConnector is go-sql-driver's connector for cfg whose connections run with WordPress'
// sql_mode, for tools that write calendars outside a DB (the benchmark's generator).
func MySQLConnector(cfg *mysql.Config) (driver.Connector, error) {
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return wpSessionConnector{conn}, nil
}
