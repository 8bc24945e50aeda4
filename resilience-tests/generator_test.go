package resiliencetests

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/calendard/calendard/internal/testenv"
)

// The generator turns the service's own route table (the namespace index, which lists every route,
// method and argument, as WordPress' does) and the fixture's IDs and slugs into hostile requests.
// Request i of a run is a function of (seed, i) only, so a failure names a reproducible request.

// endpoint is one method group of a route.
type endpoint struct {
	route   string // e.g. /tribe/events/v1/events/(?P<id>\d+)
	methods []string
	args    []arg
}

type arg struct {
	name  string
	typ   string // integer, string, boolean, number, array, or "" (any)
	items bool
}

// routeTable reads the endpoints from GET /wp-json/tribe/events/v1.
func routeTable(t *testing.T, s *server) []endpoint {
	t.Helper()
	out := routeTableOf(t, s, "tribe/events/v1")
	if len(out) < 30 {
		t.Fatalf("only %d endpoints in the namespace index", len(out))
	}
	return out
}

// routeTableOf reads the endpoints of one namespace from its index.
func routeTableOf(t *testing.T, s *server, ns string) []endpoint {
	t.Helper()
	a := s.call(t.Context(), "GET", "/wp-json/"+ns, "", nil)
	if a.err != nil || a.status != 200 {
		t.Fatalf("namespace index: %d %v", a.status, a.err)
	}
	var idx struct {
		Routes map[string]struct {
			Endpoints []struct {
				Methods []string        `json:"methods"`
				Args    json.RawMessage `json:"args"`
			} `json:"endpoints"`
		} `json:"routes"`
	}
	if err := json.Unmarshal(a.body, &idx); err != nil {
		t.Fatal(err)
	}
	var out []endpoint
	for route, r := range idx.Routes {
		for _, e := range r.Endpoints {
			ep := endpoint{route: route, methods: e.Methods}
			var args map[string]struct {
				Type  string          `json:"type"`
				Items json.RawMessage `json:"items"`
			}
			_ = json.Unmarshal(e.Args, &args) // [] when there are none
			for name, a := range args {
				ep.args = append(ep.args, arg{name: name, typ: a.Type, items: a.Items != nil})
			}
			sort.Slice(ep.args, func(i, j int) bool { return ep.args[i].name < ep.args[j].name })
			out = append(out, ep)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].route != out[j].route {
			return out[i].route < out[j].route
		}
		return out[i].methods[0] < out[j].methods[0]
	})
	return out
}

// fixtureIDs are real identifiers, so that hostile values also reach records that exist.
type fixtureIDs struct {
	events, venues, organizers, categories, tags []string
	slugs                                        []string
}

func loadFixtureIDs(t *testing.T, s *server) fixtureIDs {
	t.Helper()
	db := openSpec(t, s.spec)
	var f fixtureIDs
	for typ, dst := range map[string]*[]string{"tribe_events": &f.events, "tribe_venue": &f.venues, "tribe_organizer": &f.organizers} {
		*dst = queryStrings(t, db, "SELECT CAST(ID AS CHAR) FROM wp_posts WHERE post_type = ? ORDER BY ID", typ)
	}
	f.categories = queryStrings(t, db, "SELECT CAST(term_id AS CHAR) FROM wp_term_taxonomy WHERE taxonomy = 'tribe_events_cat' ORDER BY term_id")
	f.tags = queryStrings(t, db, "SELECT CAST(term_id AS CHAR) FROM wp_term_taxonomy WHERE taxonomy = 'post_tag' ORDER BY term_id")
	f.slugs = queryStrings(t, db, "SELECT post_name FROM wp_posts WHERE post_type IN ('tribe_events','tribe_venue','tribe_organizer') AND post_name <> '' ORDER BY ID")
	f.slugs = append(f.slugs, queryStrings(t, db, "SELECT slug FROM wp_terms ORDER BY term_id")...)
	if len(f.events) < 100 || len(f.venues) == 0 || len(f.slugs) == 0 {
		t.Fatalf("fixture IDs: %d events, %d venues, %d slugs", len(f.events), len(f.venues), len(f.slugs))
	}
	return f
}

// Hostile scalar values, as the raw bytes a parameter carries once decoded.
var (
	numberValues = []string{"-1", "0", "-0", "00", "1", "2", "1.5", "-2.5", "1e3", "1e308", "1e309", "-1e309", "1e-400",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616", "922337203685477580", "184467440737095517",
		"99999999999999999999999999999999999999999999", "4294967296", "2147483648", "0x1A", "0b101", "0o17", "1_000",
		" 5", "5 ", "+5", "05", "5abc", "abc5", "NaN", "nan", "INF", "Infinity", "-Infinity", "١٢٣", "１２", "1,2", "1.", ".5",
		"1e", "--1", "+-1", "0.0000000000000000000001", strings.Repeat("9", 400), "-" + strings.Repeat("1", 200)}
	typeValues   = []string{"", " ", "true", "false", "TRUE", "null", "NULL", "[]", "{}", "[1,2]", `{"a":1}`, "Array", "array", "Object", "undefined", "yes", "no", "on", "off", "y", "n"}
	injectValues = []string{"' OR '1'='1", "1' OR '1'='1' -- ", "1; DROP TABLE wp_posts; --", "1 UNION SELECT user_pass FROM wp_users",
		`" OR 1=1 -- `, "%' AND SLEEP(5) AND '%'='", "1) OR (1=1", "`", `\`, `\'`, `\\'`, `\"`, "''", "';--", "1 AND 1=CAST((SELECT user_pass FROM wp_users LIMIT 1) AS SIGNED)",
		"(SELECT 1 FROM dual WHERE BENCHMARK(10000000,MD5(1)))", "1' AND extractvalue(1,concat(0x7e,version()))-- ",
		"${jndi:ldap://127.0.0.1/x}", "{{7*7}}", "<%= 7*7 %>", "<script>alert(1)</script>", `"><img src=x onerror=alert(1)>`,
		"javascript:alert(1)", "../../../../etc/passwd", "..\\..\\..\\windows\\win.ini", "/etc/passwd", "file:///etc/passwd",
		"http://169.254.169.254/latest/meta-data/", "|cat /etc/passwd", "$(id)", "`id`", ";id", "\x00", "a\x00b", "\r\nX-Injected: 1",
		`a:1:{s:1:"a";O:8:"stdClass":0:{}}`, `O:8:"stdClass":0:{}`, `s:1000000:"x";`, "*", "%", "_", "%%", "__", "%_%", "\\%", "[a-z]",
		"REGEXP '^(a+)+$'", strings.Repeat("(", 100), "(?P<x>.*)", "^(a+)+$", "[[:alpha:]]", "admin'--", "-1 OR 1=1", "1 OR 1=1",
		"any", "publish", "trash", "auto-draft", "inherit", "private", "draft,pending,private,future,trash", "PUBLISH", " publish ",
		"publish,publish,publish", "request-pending", "sticky", "edit", "embed", "view", "_wp_old_slug", "0,0,0", ",,,,", ",",
		"1,,2", "1,a,-1,2.5", "tribe_events", "post_tag", "tribe_events_cat", "wp_posts", "../", "/..", "./.", "~", "@", "#", "&",
		"=", "?", "+", " + ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u2028", "\u202e", "\ufeff", "\u200b", "café", "CAFÉ", "cafe\u0301",
		"İ", "ß", "ﬀ", "😀", "𝕏", "日本語", "مرحبا", "\xff", "\xfe\xff", "\xc0\xaf", "\xc0\x80", "\xe0\x80\xaf", "\xed\xa0\x80",
		"\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80", "a\xffb", "\x80", "\xbf", "\xe2\x82", "\xe2\x82\xac", "\x1b[31m"}
	dateValues = []string{"0000-00-00", "0000-00-00 00:00:00", "9999-12-31 23:59:59", "-9999-01-01", "10000-01-01", "@-9999999999999",
		"@99999999999999999999", "now", "+1000000 years", "-1000000 years", "2024-02-30", "2024-13-01", "2024-00-00", "24:00", "25:61",
		"tomorrow noon", "last day of next month", "first monday of january 2030", "1970-01-01", "3000000000", "-1e10", "T", "Z",
		"2024-01-01T10:00:00+99:99", "2024-01-01 10:00:00 Mars/Olympus", "2024-01-01 10:00:00 EST5EDT", "yesterday 23:59",
		"@1.5", "1.5", "-1", "0", "next", "+", "+1", "+1 day +1 day +1 day +1 day +1 day +1 day +1 day +1 day",
		strings.Repeat("+1 week ", 200), strings.Repeat("a", 300), "2024-01-01\x002024", "2024-01-01%00", "2024-W53-8", "2024-366",
		"Sat, 31 Dec 9999 23:59:59 GMT", "1 Jan 1 BC", "noon midnight", "back of 7pm", "front of 25", "+999999999999999999 sec"}
	// Percent sequences that are not valid, or decode to what must not be there.
	badEscapes = []string{"%", "%z", "%zz", "%%", "%2", "%2G", "%u0041", "%C0%AF", "%ED%A0%80", "%FF", "%FE%FF", "%00", "%0d%0a",
		"%25", "%2525", "%252", "%E2%82", "%F4%90%80%80", "%c3%28", "%+", "%-1", "%%%%", "a%", "%a"}
)

// gen produces the requests of one run.
type gen struct {
	seed    uint64
	addr    string
	eps     []endpoint
	ids     fixtureIDs
	readEps []endpoint // GET endpoints
	write   []endpoint // POST/PUT/PATCH/DELETE endpoints
	// fixedReqs open every anonymous phase (see fixed and sweep).
	fixedReqs []*hreq
}

// lists are the GET endpoints of every namespace served (tribe/events/v1 and wp/v2) whose page,
// per_page and offset arguments the paging sweep gives out-of-range values.
func newGen(seed uint64, addr string, eps, lists []endpoint, ids fixtureIDs) *gen {
	g := &gen{seed: seed, addr: addr, eps: eps, ids: ids}
	g.fixedReqs = append(append(g.fixed(), g.sweep()...), g.pagingSweep(lists)...)
	for _, e := range eps {
		if e.methods[0] == "GET" {
			g.readEps = append(g.readEps, e)
		} else {
			g.write = append(g.write, e)
		}
	}
	return g
}

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

// rawValue is a hostile value for a parameter of type typ.
func (g *gen) rawValue(r *rand.Rand, a arg) string {
	switch r.IntN(12) {
	case 0, 1:
		return pick(r, numberValues)
	case 2:
		return pick(r, typeValues)
	case 3, 4, 5:
		return pick(r, injectValues)
	case 6:
		return pick(r, dateValues)
	case 7: // a real ID, or a list of them
		ids := pick(r, [][]string{g.ids.events, g.ids.venues, g.ids.organizers, g.ids.categories, g.ids.tags})
		n := 1 + r.IntN(3)
		if r.IntN(10) == 0 {
			n = 200 + r.IntN(800)
		}
		parts := make([]string, n)
		for i := range parts {
			parts[i] = pick(r, ids)
		}
		return strings.Join(parts, pick(r, []string{",", ", ", " , ", ",,", "%2C"}))
	case 8:
		return pick(r, g.ids.slugs)
	case 9: // random bytes
		b := make([]byte, 1+r.IntN(40))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return string(b)
	case 10: // long
		return strings.Repeat(pick(r, []string{"a", "é", "%", "1", ",", "\xff", "'", "1,"}), 100+r.IntN(3000))
	default:
		// What the type expects, so that the other parameters decide the answer.
		switch a.typ {
		case "integer":
			return strconv.Itoa(1 + r.IntN(60))
		case "boolean":
			return pick(r, []string{"true", "false", "1", "0"})
		case "number":
			return strconv.FormatFloat(r.Float64()*360-180, 'f', -1, 64)
		}
		if a.items {
			return pick(r, g.ids.events)
		}
		return pick(r, []string{"jazz", "2027-01-01", "publish", "concert", "a"})
	}
}

// escape encodes a value for a query string in one of several ways, some of them broken on purpose.
func escape(r *rand.Rand, v string) string {
	switch r.IntN(8) {
	case 0: // every byte
		var b strings.Builder
		for i := 0; i < len(v); i++ {
			fmt.Fprintf(&b, "%%%02X", v[i])
		}
		return b.String()
	case 1: // raw where the request line allows it: invalid UTF-8 and stray % reach the parser as is
		var b strings.Builder
		for i := 0; i < len(v); i++ {
			c := v[i]
			if c <= ' ' || c == 0x7f || c == '#' {
				fmt.Fprintf(&b, "%%%02x", c)
			} else {
				b.WriteByte(c)
			}
		}
		return b.String()
	case 2: // a broken escape inside
		e := url.QueryEscape(v)
		at := r.IntN(len(e) + 1)
		return e[:at] + pick(r, badEscapes) + e[at:]
	default:
		return url.QueryEscape(v)
	}
}

// paramName mangles a parameter name the ways PHP's variable registration treats specially.
func paramName(r *rand.Rand, n string) string {
	switch r.IntN(20) {
	case 0:
		return strings.Replace(n, "_", ".", 1) // PHP turns . and space into _
	case 1:
		return strings.Replace(n, "_", "%20", 1)
	case 2:
		return n + "["
	case 3:
		return strings.ToUpper(n)
	case 4:
		return "%00" + n
	case 5:
		return url.QueryEscape(n) + "%5B%5D"
	}
	return n
}

// queryPair renders name=value in one of PHP's shapes: scalar, array, map, nested, repeated,
// conflicting, bare, empty.
func (g *gen) queryPair(r *rand.Rand, a arg) string {
	n := paramName(r, a.name)
	v := func() string { return escape(r, g.rawValue(r, a)) }
	switch r.IntN(14) {
	case 0:
		return n + "[]=" + v() + "&" + n + "[]=" + v()
	case 1:
		return n + "[" + strconv.Itoa(r.IntN(5)-2) + "]=" + v()
	case 2:
		return n + "[a]=" + v() + "&" + n + "[b][c]=" + v()
	case 3:
		return n + strings.Repeat("[x]", 1+r.IntN(100)) + "=" + v()
	case 4:
		return n + "=" + v() + "&" + n + "=" + v() + "&" + n + "=" + v()
	case 5:
		return n + "=" + v() + "&" + n + "[]=" + v()
	case 6:
		return n + "[]=" + v() + "&" + n + "=" + v()
	case 7:
		return n
	case 8:
		return n + "="
	case 9:
		return n + "==" + v()
	case 10:
		return n + "[]"
	default:
		return n + "=" + v()
	}
}

// globalPair is one of WordPress' global query switches or a request-routing parameter.
func globalPair(r *rand.Rand) string {
	return pick(r, []string{"_method=DELETE", "_method=PUT", "_method=POST", "_method=PATCH", "_method=BREW", "_method[]=DELETE",
		"_envelope", "_envelope=1", "_envelope[]=1", "_jsonp=cb", "_jsonp=alert(1)", "_jsonp=" + strings.Repeat("a", 300), "_jsonp[]=x",
		"_fields=id,title", "_fields=", "_fields[]=id", "_fields=a.b.c.d", "_fields=" + strings.Repeat("id,", 500), "_embed", "_embed=1",
		"context=edit", "context=embed", "context=x", "context[]=edit", "rest_route=/tribe/events/v1/events", "rest_route[]=x",
		"rest_route=/", "rest_route=", "password=secret3", "password=", "password[]=x", "page=2", "per_page=50"})
}

// pathFor fills a route's placeholders.
func (g *gen) pathFor(r *rand.Rand, route string) string {
	route = strings.ReplaceAll(route, `\d+`, "")
	if strings.Contains(route, "(?P<id>)") {
		var id string
		switch r.IntN(6) {
		case 0:
			id = pick(r, []string{"0", "00034", "99999999999999999999", "18446744073709551616", "9223372036854775807",
				"9223372036854775808", "4294967297", strings.Repeat("9", 300), "1"})
		default:
			id = pick(r, pick(r, [][]string{g.ids.events, g.ids.venues, g.ids.organizers, g.ids.categories, g.ids.tags}))
		}
		route = strings.Replace(route, "(?P<id>)", id, 1)
	}
	if strings.Contains(route, "(?P<slug>[^/]+)") {
		var slug string
		switch r.IntN(4) {
		case 0:
			slug = escape(r, pick(r, injectValues))
		case 1:
			slug = pick(r, append([]string{"%2e%2e", "..", ".", "%2F", "a%2Fb", "%ff%fe", "%00", strings.Repeat("a", 7000),
				strings.Repeat("%e2%98%95", 500), "cafe-%e2%98%95-croissants", "CAFE-%E2%98%95-CROISSANTS"}, badEscapes...))
		default:
			slug = url.PathEscape(pick(r, g.ids.slugs))
		}
		if slug == "" {
			slug = "x"
		}
		route = strings.Replace(route, "(?P<slug>[^/]+)", slug, 1)
	}
	return route
}

// target renders a route path and query in one of the URL forms WordPress answers.
func target(r *rand.Rand, path, query string) string {
	if r.IntN(3) == 0 {
		path = strings.Replace(path, "/tribe/events/v1", "/calendar/events/v1", 1)
	}
	switch r.IntN(6) {
	case 0:
		t := "/?rest_route=" + path
		if r.IntN(2) == 0 {
			t = "/?rest_route=" + url.QueryEscape(path)
		}
		if query != "" {
			t += "&" + query
		}
		return t
	case 1:
		t := "/index.php?rest_route=" + path
		if query != "" {
			t += "&" + query
		}
		return t
	default:
		t := "/wp-json" + path
		if query != "" {
			t += "?" + query
		}
		return t
	}
}

var wellFormedTarget = regexp.MustCompile(`^[\x21-\x7e\x80-\xff]*$`)

// fixed are requests every run sends first, anonymously: regression cases (and their neighbours),
// so they stay answered whatever the seed.
func (g *gen) fixed() []*hreq {
	var out []*hreq
	add := func(kind, target string) { out = append(out, &hreq{kind: kind, method: "GET", target: target}) }
	many := func(unit string, n int) string { return strings.TrimSuffix(strings.Repeat(unit, n), ",") }
	distinct := make([]string, 1500)
	for i := range distinct {
		distinct[i] = "a" + strconv.Itoa(i)
	}
	for _, l := range []string{"venues", "organizers"} {
		// search= of thousands of fragments: guards against a 500 on SQLite (expression tree too deep).
		add("fixed", "/wp-json/tribe/events/v1/"+l+"?search="+many("1,", 2700))
		add("fixed", "/wp-json/tribe/events/v1/"+l+"?search="+strings.Join(distinct, ","))
	}
	add("fixed", "/wp-json/tribe/events/v1/events?search="+strings.Join(distinct, "+"))
	add("fixed", "/wp-json/tribe/events/v1/events?search="+strings.Repeat("a", 900_000)) // 414
	add("fixed", "/wp-json/tribe/events/v1/events?include="+many("1,", 4000))
	add("fixed", "/wp-json/tribe/events/v1/events?categories="+many("music,", 1300))
	add("fixed", "/wp-json/tribe/events/v1/events?status="+many("publish,", 900))
	for _, l := range []string{"events", "venues", "organizers", "categories", "tags"} {
		// Paging past the integer range: guards against 500s (slice bounds, negative OFFSET).
		for _, page := range []string{"922337203685477580", "184467440737095517", "4611686018427387904", "9223372036854775807",
			"9223372036854775808", "99999999999999999999"} {
			add("fixed", "/wp-json/tribe/events/v1/"+l+"?per_page=50&page="+page)
		}
	}
	deep := &hreq{kind: "fixed", method: "POST", target: "/wp-json/tribe/events/v1/events", headers: []string{"Content-Type: application/json"}}
	deep.body, deep.length = streamBody("", "[", "", 100_000)
	form := &hreq{kind: "fixed", method: "POST", target: "/wp-json/tribe/events/v1/events", headers: []string{"Content-Type: application/x-www-form-urlencoded"}}
	form.body, form.length = streamBody("title", "[a]", "=1", 100_000)
	return append(out, deep, form)
}

// realPath fills a route's placeholders with a record of its kind that exists (wp/v2's types and
// taxonomies too: the parent of revisions, the ID of a single).
func (g *gen) realPath(route string) string {
	ids := g.ids.events
	for kind, list := range map[string][]string{"/venues/": g.ids.venues, "/organizers/": g.ids.organizers,
		"/categories/": g.ids.categories, "/tags/": g.ids.tags, "/tribe_venue/": g.ids.venues,
		"/tribe_organizer/": g.ids.organizers, "/tribe_events_cat/": g.ids.categories} {
		if strings.Contains(route, kind) {
			ids = list
		}
	}
	route = strings.Replace(route, `(?P<id>\d+)`, ids[len(ids)/2], 1)
	route = strings.Replace(route, `(?P<id>[\d]+)`, ids[len(ids)/2], 1)
	route = strings.Replace(route, `(?P<parent>[\d]+)`, ids[len(ids)/2], 1)
	return strings.Replace(route, "(?P<slug>[^/]+)", g.ids.slugs[0], 1)
}

// pagingValues are the page, per_page and offset values of the paging sweep: negative, zero, past
// 32 and 64 bits, PHP_INT_MIN, a float spelling, surrounding space, a numeric prefix.
var pagingValues = []string{"-1", "0", "1", "2147483648", "9223372036854775807", "9223372036854775808", "18446744073709551616",
	"-9223372036854775808", "-9223372036854775809", "1e3", "-1e3", "%201", "1%20", "1abc", "99999999999999999999999"}

// pagingSweep is every paging argument (page, per_page, offset) of every list given each of
// pagingValues: alone, with a small per_page (so that a page or offset lands past the end) and
// with the other paging arguments at their own extremes. It guards against a negative offset
// answering 500 on wp/v2/users (both stores) and the post lists (MariaDB).
func (g *gen) pagingSweep(lists []endpoint) []*hreq {
	var out []*hreq
	for _, e := range lists {
		if e.methods[0] != "GET" {
			continue
		}
		has := map[string]bool{}
		for _, a := range e.args {
			has[a.name] = true
		}
		path := "/wp-json" + g.realPath(e.route)
		for _, name := range []string{"page", "per_page", "offset"} {
			if !has[name] {
				continue
			}
			for _, v := range pagingValues {
				for _, more := range []string{"", "&per_page=1", "&offset=-1", "&page=9223372036854775807"} {
					if strings.Contains(more, name+"=") {
						continue
					}
					out = append(out, &hreq{kind: "paging", method: "GET", target: path + "?" + name + "=" + v + more})
				}
			}
		}
	}
	return out
}

// sweep is every argument of every route given each kind of hostile value once (a huge integer, a
// float, an injection, invalid UTF-8 or a broken escape, an array), in the query string for reads
// and in a JSON body for writes, so that no parameter is left to chance: 5 requests per argument.
func (g *gen) sweep() []*hreq {
	var out []*hreq
	for _, e := range g.eps {
		path := g.realPath(e.route)
		for _, a := range e.args {
			if e.methods[0] == "GET" {
				for _, pair := range []string{a.name + "=9223372036854775808", a.name + "=-1.5e309", a.name + "=" + url.QueryEscape("' OR '1'='1"),
					a.name + "=\xff\xfe%zz", a.name + "[]=1&" + a.name + "[x][y]=2"} {
					out = append(out, &hreq{kind: "sweep", method: "GET", target: "/wp-json" + path + "?" + pair})
				}
				continue
			}
			kb, _ := json.Marshal(a.name)
			for _, v := range []string{"1e999", `"' OR 1=1 -- "`, "\"\xff\xfe\\ud800\"", "[[[1]]]", `{"a":{"b":null}}`} {
				q := &hreq{kind: "sweep", method: e.methods[0], target: "/wp-json" + path, headers: []string{"Content-Type: application/json"}}
				q.body, q.length = bytesBody([]byte("{" + string(kb) + ":" + v + "}"))
				out = append(out, q)
			}
		}
	}
	return out
}

// next returns request i of the phase (anonymous, subscriber: everything; contributor: writes).
func (g *gen) next(i uint64, phase string) *hreq {
	r := rand.New(rand.NewPCG(g.seed, i))
	var q *hreq
	if phase == "anonymous" && i < uint64(len(g.fixedReqs)) {
		q = g.fixedReqs[i]
	} else if phase == "contributor" {
		if r.IntN(4) == 0 {
			q = g.createEvent(r)
		} else {
			q = g.writeRequest(r, true)
		}
	} else if phase == "badauth" {
		q = g.badAuth(r)
	} else {
		switch n := r.IntN(100); {
		case n < 42:
			q = g.queryRequest(r)
		case n < 66:
			q = g.writeRequest(r, false)
		case n < 74:
			q = g.pathTrick(r)
		case n < 82:
			q = g.oddMethod(r)
		case n < 90:
			q = g.longURL(r)
		case n < 93:
			q = g.bigBody(r)
		default:
			q = g.plausible(r)
		}
	}
	if !wellFormedTarget.MatchString(q.target) {
		q.transport = true
	} else if _, err := url.ParseRequestURI(q.target); err != nil {
		q.transport = true // Go's server refuses what net/url cannot parse (invalid escapes in the path)
	}
	size := len(q.method) + len(q.target)
	for _, h := range q.headers {
		size += len(h) + 2
	}
	if size > 30000 { // near or past the 32 KiB of request line and headers: Go's bare 431
		q.transport = true
	}
	return q
}

// queryRequest: a GET endpoint with hostile query parameters (each of its arguments can be hit).
func (g *gen) queryRequest(r *rand.Rand) *hreq {
	e := pick(r, g.readEps)
	var pairs []string
	if len(e.args) > 0 {
		for n := 1 + r.IntN(4); n > 0; n-- {
			pairs = append(pairs, g.queryPair(r, pick(r, e.args)))
		}
	}
	if r.IntN(4) == 0 {
		pairs = append(pairs, globalPair(r))
	}
	if r.IntN(8) == 0 {
		pairs = append(pairs, g.queryPair(r, arg{name: pick(r, []string{"foo", "a", "post_type", "orderby", "order", "s", "p", "author", "meta_key", "tax_query", "posts_per_page"})}))
	}
	if r.IntN(10) == 0 {
		pairs = append(pairs, pick(r, []string{"&&&", "&=&", "=x", "&", "%26%3D", "a=1&&b=2"}))
	}
	method := "GET"
	if r.IntN(10) == 0 {
		method = "HEAD"
	}
	return &hreq{kind: "query", method: method, target: target(r, g.pathFor(r, e.route), strings.Join(pairs, "&")), headers: g.headers(r)}
}

// headers adds some hostile but well-formed headers.
func (g *gen) headers(r *rand.Rand) []string {
	var h []string
	for n := r.IntN(3); n > 0; n-- {
		h = append(h, pick(r, []string{"Origin: null", "Origin: https://evil.example", "Origin: http://127.0.0.1:8088",
			"Cookie: wordpress_logged_in_abc=admin|9999999999|token|hmac", "Cookie: wp-postpass_abc=%24P%24Bxxxx",
			"Cookie: " + strings.Repeat("a=b; ", 500), "X-WP-Nonce: 0123456789", "X-HTTP-Method-Override: DELETE",
			"X-HTTP-Method-Override: BREW", "X-Forwarded-For: 1.2.3.4, " + strings.Repeat("5.6.7.8, ", 50) + "9.9.9.9",
			"X-Forwarded-For: ' OR 1=1", "X-Forwarded-Proto: https", "X-Real-IP: ::1", "Accept: application/xml",
			"Accept-Encoding: gzip, deflate, br", "Range: bytes=0-10", "If-None-Match: *", "If-Modified-Since: Sat, 1 Jan 3000 00:00:00 GMT",
			"Access-Control-Request-Method: DELETE", "Access-Control-Request-Headers: X-Evil", "Content-Type: application/json",
			"Referer: javascript:alert(1)", "User-Agent: () { :; }; /bin/bash -c 'id'", "Accept-Language: " + strings.Repeat("x,", 1000),
			"X-Original-URL: /wp-json/tribe/events/v1/events/34", "X-Rewrite-URL: /wp-admin/", "Forwarded: for=1.2.3.4;proto=https",
			"Expect: 100-continue", "Connection: close", "Content-Type: text/plain; charset=\xff\xfe"}))
	}
	return h
}

// bodyArgs are the arguments of a write endpoint, and a few it does not declare.
func bodyArgs(e endpoint) []arg {
	out := append([]arg(nil), e.args...)
	return append(out, arg{name: "id"}, arg{name: "post_type"}, arg{name: "ID"}, arg{name: "meta"}, arg{name: "_EventStartDate"})
}

// jsonValue is a hostile JSON value as text (not always valid JSON).
func (g *gen) jsonValue(r *rand.Rand, a arg, depth int) string {
	switch r.IntN(16) {
	case 0:
		return pick(r, []string{"1e308", "1e999", "-1e999", "-1", "0", "-0", "1.5", "9223372036854775807", "9223372036854775808",
			"18446744073709551616", "-9223372036854775809", strings.Repeat("9", 500), "1E+2", "0.1e-999", "12345678901234567890.5"})
	case 1:
		return pick(r, []string{"true", "false", "null", "[]", "{}", `""`, `" "`})
	case 2, 3:
		b, _ := json.Marshal(pick(r, injectValues))
		return string(b)
	case 4: // raw invalid UTF-8 inside a string, or escapes that decode to trouble
		return pick(r, []string{"\"\xff\xfe\"", "\"a\xc0\xafb\"", `"\ud800"`, `"\udfff\ud800"`, `"\u0000"`, `"a\u0000b"`, `"\/\/"`,
			`"\x41"`, `"\u00"`, "\"\x00\"", "\"\t\n\"", `"\uDBFF\uDFFF"`, `"\uFFFF"`})
	case 5:
		b, _ := json.Marshal(pick(r, dateValues))
		return string(b)
	case 6: // a real id or list
		ids := pick(r, [][]string{g.ids.events, g.ids.venues, g.ids.organizers, g.ids.categories, g.ids.tags})
		if r.IntN(2) == 0 {
			return pick(r, ids)
		}
		return "[" + pick(r, ids) + "," + pick(r, ids) + "]"
	case 7: // array where a scalar is expected, mixed
		if depth > 3 {
			return "[]"
		}
		return "[" + g.jsonValue(r, a, depth+1) + "," + g.jsonValue(r, a, depth+1) + "]"
	case 8: // object where a scalar is expected (venue/organizer data, nested)
		if depth > 3 {
			return "{}"
		}
		return `{"venue":` + g.jsonValue(r, a, depth+1) + `,"organizer":` + g.jsonValue(r, a, depth+1) + `,"id":` + g.jsonValue(r, a, depth+1) + "}"
	case 9: // nested deep
		d := pick(r, []int{20, 64, 65, 100, 511, 512, 513, 1000})
		return strings.Repeat("[", d) + "1" + strings.Repeat("]", d)
	case 10:
		b, _ := json.Marshal(strings.Repeat(pick(r, []string{"a", "é", "<p>", "'", "😀", "&amp;"}), 1000+r.IntN(50000)))
		return string(b)
	case 11:
		return pick(r, []string{"NaN", "Infinity", "-Infinity", "undefined", "'single'", "01", "+1", ".5", "1.", "0x10", "tru", "nul"})
	case 12:
		b, _ := json.Marshal(pick(r, numberValues))
		return string(b)
	default:
		b, _ := json.Marshal(g.rawValue(r, a))
		return string(b)
	}
}

// validEvent is the base of a create that would succeed, so that one hostile field decides.
func validEvent(r *rand.Rand) map[string]string {
	day := 1 + r.IntN(27)
	return map[string]string{"title": fmt.Sprintf(`"Hostile %d"`, r.IntN(1e6)),
		"start_date": fmt.Sprintf(`"2027-03-%02d 10:00:00"`, day), "end_date": fmt.Sprintf(`"2027-03-%02d 12:00:00"`, day),
		"venue": fmt.Sprintf(`{"venue":"Hostile Hall %d","city":"Leeds"}`, r.IntN(50)), "status": `"draft"`}
}

// writeRequest: a write endpoint with a hostile body (JSON, form or multipart), or a hostile query.
func (g *gen) writeRequest(r *rand.Rand, contributor bool) *hreq {
	e := pick(r, g.write)
	method := pick(r, e.methods)
	if r.IntN(10) == 0 {
		method = pick(r, []string{"POST", "PUT", "PATCH", "DELETE", "GET"})
	}
	path := g.pathFor(r, e.route)
	args := bodyArgs(e)
	fields := map[string]string{}
	if contributor && strings.HasSuffix(e.route, "/events") && method == "POST" && r.IntN(3) > 0 {
		fields = validEvent(r)
	}
	for n := 1 + r.IntN(4); n > 0; n-- {
		a := pick(r, args)
		fields[a.name] = g.jsonValue(r, a, 0)
	}
	var query []string
	if r.IntN(5) == 0 {
		query = append(query, globalPair(r))
	}
	if r.IntN(5) == 0 {
		query = append(query, g.queryPair(r, pick(r, args)))
	}
	q := &hreq{kind: "write", method: method, target: target(r, path, strings.Join(query, "&")), headers: g.headers(r)}
	var body []byte
	ctype := "application/json"
	switch n := r.IntN(20); {
	case n < 11: // JSON object
		var b strings.Builder
		b.WriteString("{")
		keys := make([]string, 0, len(fields))
		for k := range fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",")
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteString(":")
			b.WriteString(fields[k])
		}
		if r.IntN(6) == 0 && len(keys) > 0 { // a duplicate key
			kb, _ := json.Marshal(keys[0])
			b.WriteString("," + string(kb) + ":" + g.jsonValue(r, arg{}, 0))
		}
		b.WriteString("}")
		body = []byte(b.String())
	case n < 13: // malformed JSON
		body = []byte(pick(r, []string{"{", "}", "[", `{"title":}`, `{"title":"a"}garbage`, "\xef\xbb\xbf{\"title\":\"a\"}",
			`{"title":"a",}`, "nul", `"string"`, "123", "[]", "[{}]", `{"a":NaN}`, "{\"title\":\"\x00\"}", `{"title" "a"}`,
			`{'title':'a'}`, "{\"title\":\"a\"\x00}", strings.Repeat("{\"a\":", 600) + "1" + strings.Repeat("}", 600), "", " ", "\n",
			`{"__proto__":{"admin":true}}`, `{"constructor":{"prototype":{}}}`}))
	case n < 16: // form
		ctype = "application/x-www-form-urlencoded"
		var pairs []string
		for n := 1 + r.IntN(5); n > 0; n-- {
			pairs = append(pairs, g.queryPair(r, pick(r, args)))
		}
		body = []byte(strings.Join(pairs, "&"))
	case n < 18: // multipart, sometimes broken
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		for n := 1 + r.IntN(4); n > 0; n-- {
			a := pick(r, args)
			name := a.name
			if r.IntN(3) == 0 {
				name += pick(r, []string{"[]", "[a]", "[a][b]", "["})
			}
			if r.IntN(5) == 0 {
				fw, _ := mw.CreateFormFile(name, pick(r, []string{"../../x.php", "a.jpg", "\xff.png"}))
				io.WriteString(fw, g.rawValue(r, a))
			} else {
				_ = mw.WriteField(name, g.rawValue(r, a))
			}
		}
		mw.Close()
		body = buf.Bytes()
		ctype = mw.FormDataContentType()
		if r.IntN(3) == 0 {
			switch r.IntN(4) {
			case 0:
				ctype = "multipart/form-data"
			case 1:
				ctype = "multipart/form-data; boundary=wrong"
			case 2:
				body = body[:r.IntN(len(body)+1)]
			default:
				ctype = "multipart/form-data; boundary=" + strings.Repeat("x", 100)
			}
		}
	default: // JSON under a content type that says otherwise, or none
		body, _ = json.Marshal(map[string]string{"title": "x", "start_date": "2027-01-01", "end_date": "2027-01-02"})
		ctype = pick(r, []string{"", "text/plain", "application/xml", "application/json; charset=utf-16", "APPLICATION/JSON",
			"application/json, text/html", ";;;", "application/x-www-form-urlencoded; charset=\xff", "application/merge-patch+json",
			"application/vnd.api+json", "application/json; boundary=x"})
	}
	if ctype != "" {
		q.headers = append(q.headers, "Content-Type: "+ctype)
	}
	if r.IntN(30) == 0 {
		q.headers = append(q.headers, "Content-Encoding: gzip")
	}
	q.body, q.length = bytesBody(body)
	if r.IntN(8) == 0 {
		q.length = -1 // chunked
	}
	return q
}

// createEvent: a contributor's create that would succeed but for the fields given hostile values
// (many still succeed: the write path then stores what it accepted).
func (g *gen) createEvent(r *rand.Rand) *hreq {
	fields := validEvent(r)
	for _, a := range pick(r, g.write).args {
		if r.IntN(4) == 0 {
			fields[a.name] = g.jsonValue(r, a, 0)
		}
	}
	var b strings.Builder
	b.WriteString("{")
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",")
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteString(":" + fields[k])
	}
	b.WriteString("}")
	q := &hreq{kind: "create", method: "POST", target: target(r, "/tribe/events/v1/events", ""), headers: []string{"Content-Type: application/json"}}
	q.body, q.length = bytesBody([]byte(b.String()))
	return q
}

func bytesBody(b []byte) (func() io.Reader, int64) {
	return func() io.Reader { return bytes.NewReader(b) }, int64(len(b))
}

// pathTrick: dot segments, encoded separators, doubled slashes, absolute-form targets and the like.
func (g *gen) pathTrick(r *rand.Rand) *hreq {
	id := pick(r, g.ids.events)
	t := pick(r, []string{
		"/wp-json/tribe/events/v1/events/../venues", "/wp-json/tribe/events/v1/./events", "//wp-json//tribe/events/v1/events",
		"/wp-json/tribe/events/v1/events/", "/wp-json/tribe/events/v1/events//" + id, "/WP-JSON/tribe/events/v1/events",
		"/wp-json/TRIBE/events/v1/events", "/wp-json/tribe/events/v1/events%2F" + id, "/wp-json/tribe/events/v1/events/" + id + "%00",
		"/wp-json/tribe/events/v1/events/" + id + "/../" + id, "/wp-json/tribe/events/v1/events/%2e%2e/venues",
		"/wp-json/tribe/events/v1/events/by-slug/..%2f..%2f..%2fetc%2fpasswd", "/wp-json/tribe/events/v1/events/by-slug/",
		"/wp-json/tribe/events/v1/events/by-slug//x", "/?rest_route=/tribe/events/v1/events/../../../", "/?rest_route=%2e%2e",
		"/?rest_route=/tribe/events/v1/events/" + id + "%00", "/?rest_route=\\tribe\\events\\v1\\events", "/?rest_route=//tribe//events//v1//events",
		"/wp-json/tribe/events/v1/events;jsessionid=1", "/wp-json/tribe/events/v1/events;/" + id, "http://evil.example/wp-json/tribe/events/v1/events",
		"http://127.0.0.1/wp-json/tribe/events/v1/events/" + id, "/wp-json\\tribe\\events\\v1\\events", "/wp-json/tribe/events/v1/events/" + id + "/",
		"/wp-json/tribe/events/v1/events/" + id + "?", "/wp-json/tribe/events/v1/events/" + id + "??", "/wp-json/tribe/events/v1/events/-" + id,
		"/wp-json/tribe/events/v1/events/+" + id, "/wp-json/tribe/events/v1/events/" + id + ".json", "/wp-json/tribe/events/v1/events/%20" + id,
		"/wp-json/tribe/events/v1/events/%E2%80%8B" + id, "/wp-json/tribe/events/v1/events/%EF%BC%93%EF%BC%94", "/wp-json/tribe/events/v1/events/٣٤",
		"/wp-json/tribe/events/v1/events/0x22", "/wp-json/tribe/events/v1/", "/wp-json/tribe/events/", "/wp-json/tribe/", "/wp-json/",
		"/wp-json", "/wp-json/wp/v2/users", "/wp-json/wp/v2/posts?status=draft", "/wp-json/wp/v2/settings", "/wp-json/oembed/1.0/embed",
		"/wp-json/tribe/events/v2/events", "/wp-json/tribe/events/v1/doc/../../v1/events", "/wp-admin/", "/wp-login.php", "/xmlrpc.php",
		"/.env", "/.git/config", "/wp-config.php", "/", "/healthz/..", "/healthz?x=%ff", "/debug/pprof/", "/debug/vars",
		"/%2e%2e/%2e%2e/etc/passwd", "/wp-json/tribe/events/v1/events/" + strings.Repeat("../", 100), "*", "/%", "/%zz", "/%00",
		"/wp-json/%ff%fe/", "/wp-json/tribe/events/v1/events/\xff", "/wp-json/tribe/events/v1/events/by-slug/\xc0\xaf",
		"/wp-json/tribe/events/v1/events?rest_route=/tribe/events/v1/venues", "/?rest_route=/tribe/events/v1/events&rest_route=/tribe/events/v1/venues",
		"/?rest_route[]=/tribe/events/v1/events", "/?rest_route=/tribe/events/v1/events/" + strings.Repeat("9", 5000),
		"/wp-json/tribe/events/v1/events/" + id + "#fragment", "/wp-json/tribe/events/v1/events/" + id + "/ical",
	})
	method := pick(r, []string{"GET", "GET", "GET", "POST", "DELETE", "OPTIONS", "HEAD"})
	q := &hreq{kind: "path", method: method, target: t, headers: g.headers(r)}
	return q
}

// oddMethod: methods no client of the API sends, malformed method tokens, and framing tricks.
func (g *gen) oddMethod(r *rand.Rand) *hreq {
	e := pick(r, g.eps)
	t := target(r, g.pathFor(r, e.route), "")
	q := &hreq{kind: "method", method: pick(r, []string{"OPTIONS", "HEAD", "TRACE", "CONNECT", "PROPFIND", "MKCOL", "COPY", "MOVE",
		"LOCK", "BREW", "M-SEARCH", "get", "Post", "DELETE", "PATCH", "PUT", "SEARCH", "QUERY", strings.Repeat("X", 1000), "GET\x00", "G%45T"}),
		target: t, headers: g.headers(r)}
	if strings.Contains(q.method, "\x00") {
		q.transport = true
	}
	switch r.IntN(8) {
	case 0: // a body on a method that takes none
		q.body, q.length = bytesBody([]byte(`{"title":"x"}`))
		q.headers = append(q.headers, "Content-Type: application/json")
	case 1: // conflicting or broken framing: refused by Go's server, never misread as a next request
		q.transport = true
		switch r.IntN(6) {
		case 0:
			q.headers = append(q.headers, "Content-Length: 5", "Content-Length: 7")
		case 1:
			q.headers = append(q.headers, "Content-Length: 5, 6")
		case 2:
			q.headers = append(q.headers, "Content-Length: -1")
		case 3:
			q.headers = append(q.headers, "Content-Length: 99999999999999999999")
		case 4: // both: chunked wins, Content-Length is dropped (RFC 9112 §6.3)
			q.headers = append(q.headers, "Content-Length: 7", "Content-Type: application/json")
			q.body, q.length = bytesBody([]byte(`{"title":"x"}`))
			q.length = -1
		default: // a transfer coding Go's server does not implement: its bare 501, as nginx answers
			q.headers = append(q.headers, pick(r, []string{"Transfer-Encoding: identity", "Transfer-Encoding: gzip, chunked"}))
			q.unsupportedTE = true
		}
	case 2: // Host tricks
		if r.IntN(2) == 0 {
			q.noHost = true
			q.transport = true
		} else {
			q.noHost = true
			q.headers = append(q.headers, pick(r, []string{"Host: evil.example", "Host: ", "Host: 127.0.0.1:1", "Host: [::1]:80"}))
		}
	case 3: // method override on POST
		q.method = "POST"
		q.headers = append(q.headers, "X-HTTP-Method-Override: "+pick(r, []string{"DELETE", "PUT", "PATCH", "GET", "BREW", ""}))
	}
	return q
}

// longURL: request targets around and beyond the 8 KiB limit, and header blocks beyond 32 KiB.
func (g *gen) longURL(r *rand.Rand) *hreq {
	e := pick(r, g.readEps)
	size := pick(r, []int{4000, 8100, 8192, 8193, 9000, 16000, 31000, 40000, 100000})
	a := arg{name: "search"}
	if len(e.args) > 0 {
		a = pick(r, e.args)
	}
	unit := pick(r, []string{"a", "%61", "1,", "%ff", "%", "é", "x[]=1&"})
	base := target(r, g.pathFor(r, e.route), a.name+"=")
	n := (size - len(base)) / len(unit)
	t := base + strings.Repeat(unit, max(n, 1))
	q := &hreq{kind: "long", method: "GET", target: t}
	if len(t) > 30000 { // past the header limit: Go's server answers a bare 431 (docs/reliability.md)
		q.transport = true
	}
	if r.IntN(4) == 0 { // a long header instead
		q.target = target(r, g.pathFor(r, e.route), "")
		q.headers = []string{"X-Long: " + strings.Repeat("h", size)}
		q.transport = size > 30000
	}
	return q
}

// streamBody is head + unit×n + tail, streamed.
func streamBody(head, unit, tail string, size int) (func() io.Reader, int64) {
	n := max((size-len(head)-len(tail))/len(unit), 0)
	return func() io.Reader {
		return io.MultiReader(strings.NewReader(head), &testenv.RepeatReader{Unit: unit, N: n}, strings.NewReader(tail))
	}, int64(len(head) + n*len(unit) + len(tail))
}

// bombKinds are the body bombs: many values, many containers, many form variables, one huge string,
// deep nesting.
var bombKinds = []struct{ name, ctype, head, unit, tail string }{
	{"json numbers", "application/json", "[", "1,", "1]"},
	{"json objects", "application/json", "[", "{},", "{}]"},
	{"form a[]", "application/x-www-form-urlencoded", "", "a[]=&", "a[]="},
	{"json string", "application/json", `{"title":"`, "x", `"}`},
	{"json nesting", "application/json", "", "[", ""},
	{"form nesting", "application/x-www-form-urlencoded", "a", "[a]", "=1"},
}

// bigBody: bodies from 100 KB to beyond the 8 MiB limit, on a random write route.
func (g *gen) bigBody(r *rand.Rand) *hreq {
	e := pick(r, g.write)
	k := pick(r, bombKinds)
	size := pick(r, []int{20_000, 100_000, 100_000, 300_000, 300_000, 1_000_000, 9_000_000})
	q := &hreq{kind: "body " + k.name, method: pick(r, e.methods), target: target(r, g.pathFor(r, e.route), ""),
		headers: []string{"Content-Type: " + k.ctype}}
	q.body, q.length = streamBody(k.head, k.unit, k.tail, size)
	if r.IntN(4) == 0 {
		q.length = -1
	}
	return q
}

// plausible: ordinary requests with valid filters, so that the answers that succeed are exercised too.
func (g *gen) plausible(r *rand.Rand) *hreq {
	var t string
	switch r.IntN(6) {
	case 0:
		t = "/wp-json/tribe/events/v1/events?per_page=" + strconv.Itoa(1+r.IntN(50)) + "&page=" + strconv.Itoa(1+r.IntN(4)) +
			"&start_date=2025-01-01&end_date=2028-12-31"
	case 1:
		t = "/wp-json/tribe/events/v1/events?search=" + pick(r, []string{"jazz", "concert", "café", "fair", "e", "'", "%"}) + "&start_date=2025-01-01"
	case 2:
		t = "/wp-json/tribe/events/v1/events/" + pick(r, g.ids.events)
	case 3:
		t = "/wp-json/tribe/events/v1/" + pick(r, []string{"venues", "organizers", "categories", "tags"}) + "?per_page=50"
	case 4:
		t = "/wp-json/tribe/events/v1/events?categories=" + pick(r, g.ids.categories) + "&tags=" + pick(r, g.ids.tags) + "&start_date=2025-01-01"
	default:
		t = "/wp-json/tribe/events/v1/events?include=" + pick(r, g.ids.events) + "," + pick(r, g.ids.events) + "&starts_after=2000-01-01"
	}
	return &hreq{kind: "plausible", method: "GET", target: t}
}

// badAuth: credentials that are wrong, malformed or huge (sent last: they trip the login limiter).
func (g *gen) badAuth(r *rand.Rand) *hreq {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	user := pick(r, []string{"admin", "subscriber", "nobody", "' OR 1=1 --", "admin\x00", "ADMIN", "admin@example.com", strings.Repeat("u", 300), "\xff"})
	h := pick(r, []string{"Basic " + b64(user+":wrong"), "Basic " + b64(user), "Basic " + b64(":"), "Basic " + b64(user+":"),
		"Basic !!!", "Basic", "Basic ", "basic " + b64(user+":x"), "Bearer abc", "Digest username=\"admin\"", "Basic " + b64(user+":"+strings.Repeat("p", 20000)),
		"Basic " + b64(user+":xxxx xxxx xxxx xxxx xxxx xxxx"), "Basic " + b64("subscriber:"+appPasswords["admin"]), "Basic =", "Basic " + b64(user+":\xff\xfe")})
	q := g.queryRequest(r)
	if r.IntN(3) == 0 {
		q = g.writeRequest(r, false)
	}
	q.kind = "auth"
	q.headers = append(q.headers, "Authorization: "+h)
	return q
}
