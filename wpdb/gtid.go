package wpdb

import (
	"sort"
	"strconv"
	"strings"
)

// gtidPos is a MariaDB GTID position (@@gtid_binlog_pos, @@gtid_slave_pos): per replication
// domain, the last transaction's server ID and sequence number. Sequence numbers only grow within
// a domain, whatever server wrote them, so a position is reached when every domain's is.
type gtidPos map[uint32]gtid

type gtid struct {
	server uint32
	seq    uint64
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
func (p gtidPos) covers(q gtidPos) bool {
	for d, g := range q {
		if p[d].seq < g.seq {
			return false
		}
	}
	return true
}

// merge returns the position that covers both p and q (a new map; neither is changed).
func (p gtidPos) merge(q gtidPos) gtidPos {
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
