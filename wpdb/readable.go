package wpdb

import (
	"strings"

	"github.com/calendard/calendard"
)

// readableSQL is the strict-reads filter (calendard.ReadRule) as a condition on a posts table named
// posts (an alias such as "p", or the table itself).
func readableSQL(posts string, r *calendard.ReadRule) (string, []any) {
	var args []any
	var pass []string
	if len(r.Others) > 0 {
		pass = append(pass, posts+".post_status IN ("+placeholders(len(r.Others))+")")
		args = append(args, stringArgs(r.Others)...)
	}
	if r.OthersUnregistered {
		pass = append(pass, posts+".post_status NOT IN ("+placeholders(len(calendard.RegisteredStatuses))+")")
		args = append(args, stringArgs(calendard.RegisteredStatuses)...)
	}
	if r.Author != 0 {
		pass = append(pass, posts+".post_author = ?")
		args = append(args, r.Author)
	}
	if len(pass) == 0 {
		pass = []string{"1 = 0"}
	}
	cond := "(" + strings.Join(pass, " OR ") + ")"
	if len(r.Hidden) > 0 {
		cond = "(" + posts + ".post_status NOT IN (" + placeholders(len(r.Hidden)) + ") AND " + cond + ")"
		args = append(stringArgs(r.Hidden), args...)
	}
	return cond, args
}
