package handlers

import (
	"regexp"
	"strings"
	"time"

	"github.com/calendard/calendard"
)

// rfc3339DateRe is rest_parse_date's RFC 3339 pattern.
var rfc3339DateRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}(?::\d{2})?)?$`)

// mysqlDateRe is a date already in MySQL's form.
var mysqlDateRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$`)

// RFC3339Date reports whether s passes the date-time format check (rest_parse_date).
func RFC3339Date(s string) bool { return rfc3339DateRe.MatchString(s) }

// LocalMySQLDate is WP_Date_Query::build_mysql_datetime for a date-time value: "Y-m-d H:i:s" is
// taken as is; anything else is read in the site's zone (or its own offset) and shown there.
func LocalMySQLDate(site *calendard.Site, v string) string {
	if mysqlDateRe.MatchString(v) {
		return v
	}
	loc := site.Location
	if loc == nil {
		loc = time.UTC
	}
	s := strings.Replace(strings.ToUpper(v), "T", " ", 1)
	for _, layout := range []string{"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z0700",
		"2006-01-02 15:04:05.999999999Z07", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t.In(loc).Format(time.DateTime)
		}
	}
	return "1970-01-01 00:00:00"
}
