package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-sql-driver/mysql"
)

// position is how far a server's replication stream has come, in its flavor's terms: a MariaDB
// GTID position (gtidPos) or a MySQL GTID set (mysqlGTIDs). nil is the empty position.
type position interface {
	// covers reports whether every transaction q names is in p (false for the other flavor's q).
	covers(q position) bool
	// merge returns the position that covers both (a new value; neither is changed).
	merge(q position) position
	empty() bool
	String() string
}

// covers is p.covers(q) with nil for the empty position.
func covers(p, q position) bool {
	switch {
	case q == nil:
		return true
	case p == nil:
		return q.empty()
	}
	return p.covers(q)
}

// merged is p.merge(q) with nil for the empty position.
func merged(p, q position) position {
	switch {
	case p == nil:
		return q
	case q == nil:
		return p
	}
	return p.merge(q)
}

// flavor is what replicas are read with on one server family: the variables that hold the
// primary's and a replica's positions, and the function that waits for a position on a replica.
type flavor struct {
	name       string
	primaryVar string // every transaction the primary has committed
	appliedVar string // every transaction a replica has applied
	waitSQL    string // (position, timeout in seconds): 0 once the replica has the position
	parse      func(string) (position, bool)
}

var (
	mariadbFlavor = &flavor{name: "MariaDB", primaryVar: "gtid_binlog_pos", appliedVar: "gtid_slave_pos",
		waitSQL: "SELECT MASTER_GTID_WAIT(?, ?)", parse: parseMariaDBPos}
	mysqlFlavor = &flavor{name: "MySQL", primaryVar: "gtid_executed", appliedVar: "gtid_executed",
		waitSQL: "SELECT WAIT_FOR_EXECUTED_GTID_SET(?, ?)", parse: parseMySQLGTIDs}
)

// detectFlavor tells the primary's family. A MySQL primary must give every transaction a GTID
// (gtid_mode=ON): a set that leaves some out cannot tell whether a replica has a write.
func detectFlavor(ctx context.Context, q queryer) (*flavor, error) {
	var version string
	if err := q.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return nil, err
	}
	if strings.Contains(strings.ToLower(version), "mariadb") {
		return mariadbFlavor, nil
	}
	var mode string
	if err := q.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_mode").Scan(&mode); err != nil {
		if !unknownVariable(err) {
			return nil, err
		}
		// A MariaDB whose version string a proxy rewrote has MariaDB's variables.
		var pos sql.NullString
		if err := q.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_binlog_pos").Scan(&pos); err != nil {
			if unknownVariable(err) {
				return nil, unsupportedPrimaryError{fmt.Sprintf("the primary (%s) has neither MySQL's nor MariaDB's GTID variables: read replicas need GTID replication", version)}
			}
			return nil, err
		}
		return mariadbFlavor, nil
	}
	if !strings.EqualFold(mode, "ON") {
		return nil, unsupportedPrimaryError{fmt.Sprintf("the MySQL primary (%s) has gtid_mode=%s: read replicas need gtid_mode=ON (and enforce_gtid_consistency=ON)", version, mode)}
	}
	return mysqlFlavor, nil
}

// unknownVariable reports whether err is the server's "Unknown system variable" (1193).
func unknownVariable(err error) bool {
	me, ok := errors.AsType[*mysql.MySQLError](err)
	return ok && me.Number == 1193
}

// unsupportedPrimaryError says why no replica can be read whatever their state.
type unsupportedPrimaryError struct{ reason string }

func (e unsupportedPrimaryError) Error() string { return e.reason }

// read reads a position variable on q.
func (f *flavor) read(ctx context.Context, q queryer, variable string) (position, error) {
	var s sql.NullString
	if err := q.QueryRowContext(ctx, "SELECT @@GLOBAL."+variable).Scan(&s); err != nil {
		return nil, err
	}
	p, ok := f.parse(s.String)
	if !ok {
		return nil, fmt.Errorf("unreadable %s %q", variable, s.String)
	}
	return p, nil
}

// mysqlGTIDs is a MySQL GTID set (@@gtid_executed): the transactions of every source UUID, as
// ranges. The library does the set algebra.
type mysqlGTIDs struct{ s *gomysql.MysqlGTIDSet }

func parseMySQLGTIDs(s string) (position, bool) {
	// gtid_executed breaks its lines after the commas.
	set, err := gomysql.ParseMysqlGTIDSet(strings.Join(strings.Fields(s), ""))
	if err != nil {
		return nil, false
	}
	return mysqlGTIDs{set.(*gomysql.MysqlGTIDSet)}, true
}

func (p mysqlGTIDs) covers(q position) bool {
	o, ok := q.(mysqlGTIDs)
	return ok && p.s.Contain(o.s)
}

func (p mysqlGTIDs) merge(q position) position {
	o, ok := q.(mysqlGTIDs)
	if !ok {
		return p
	}
	out := p.s.Clone().(*gomysql.MysqlGTIDSet)
	for _, u := range o.s.Sets {
		out.AddSet(u.Clone()) // AddSet keeps the set it is given
	}
	return mysqlGTIDs{out}
}

func (p mysqlGTIDs) empty() bool    { return p.s.IsEmpty() }
func (p mysqlGTIDs) String() string { return p.s.String() }

// gtidPos is a MariaDB GTID position (@@gtid_binlog_pos, @@gtid_slave_pos): per replication
// domain, the last transaction's server ID and sequence number. Sequence numbers only grow within
// a domain, whatever server wrote them, so a position is reached when every domain's is. (The
// library's MariaDB set compares server by server too: after a failover, a replica that has every
// transaction would not seem to.)
type gtidPos map[uint32]gtid

type gtid struct {
	server uint32
	seq    uint64
}

func parseMariaDBPos(s string) (position, bool) {
	p, ok := parseGTIDPos(s)
	if !ok {
		return nil, false
	}
	return p, true
}

// parseGTIDPos reads "domain-server-seq[,…]" ("" is the empty position).
func parseGTIDPos(s string) (gtidPos, bool) {
	p := gtidPos{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		f := strings.Split(part, "-")
		if len(f) != 3 {
			return nil, false
		}
		d, err1 := strconv.ParseUint(f[0], 10, 32)
		srv, err2 := strconv.ParseUint(f[1], 10, 32)
		seq, err3 := strconv.ParseUint(f[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, false
		}
		if cur, ok := p[uint32(d)]; !ok || seq > cur.seq {
			p[uint32(d)] = gtid{server: uint32(srv), seq: seq}
		}
	}
	return p, true
}

// String is the position as MASTER_GTID_WAIT takes it.
func (p gtidPos) String() string {
	domains := make([]uint32, 0, len(p))
	for d := range p {
		domains = append(domains, d)
	}
	sort.Slice(domains, func(i, j int) bool { return domains[i] < domains[j] })
	parts := make([]string, len(domains))
	for i, d := range domains {
		g := p[d]
		parts[i] = strconv.FormatUint(uint64(d), 10) + "-" + strconv.FormatUint(uint64(g.server), 10) + "-" + strconv.FormatUint(g.seq, 10)
	}
	return strings.Join(parts, ",")
}

// covers reports whether p has reached q in every domain of q.
func (p gtidPos) covers(o position) bool {
	q, ok := o.(gtidPos)
	if !ok {
		return false
	}
	for d, g := range q {
		if p[d].seq < g.seq {
			return false
		}
	}
	return true
}

// merge returns the position that covers both p and q (a new map; neither is changed).
func (p gtidPos) merge(o position) position {
	q, ok := o.(gtidPos)
	if !ok {
		return p
	}
	out := make(gtidPos, len(p)+len(q))
	for d, g := range p {
		out[d] = g
	}
	for d, g := range q {
		if g.seq > out[d].seq {
			out[d] = g
		}
	}
	return out
}

func (p gtidPos) empty() bool { return len(p) == 0 }
