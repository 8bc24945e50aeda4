package handlers_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/demo"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/wpauth"
	"github.com/calendard/calendard/wpdb"
)

// HTTP-level fuzzing: any route, query string, method, body and content type, as anonymous,
// subscriber, contributor, author or administrator, sent to the real server (routing, parameter
// checks, permission, handlers, writes) over a real SQLite calendar. The answer must never be a 5xx,
// and every error must be WordPress-shaped: {"code","message","data":{"status"}} with the answer's
// status. The calendar is built in-process (calendard migrate, a small demo calendar and one user
// per role), so a fuzzing worker needs no MariaDB and starts in about a second. Under plain
// `go test` only the seeds run.

// fzNow is the service clock of the fuzzed server (the demo calendar is spread around it).
var fzNow = time.Date(2026, 11, 22, 4, 29, 22, 0, time.UTC)

// fzSite is a served fuzzing calendar.
type fzSite struct {
	srv    *httptest.Server
	client *http.Client
	auth   []string // Authorization header per fzRoles entry ("" anonymous)
	ids    map[string][]int64
	slugs  map[string][]string
	log    *fzLog
}

// fzRoles are the callers a fuzz input picks from.
var fzRoles = []string{"", "subscriber", "contributor", "author", "administrator"}

// fzLog keeps the server's last log lines, shown when an answer fails the checks.
type fzLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *fzLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf.Len() > 64<<10 {
		l.buf.Reset()
	}
	return l.buf.Write(p)
}

func (l *fzLog) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.buf.String()
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return s
}

// fzServe builds the calendar in the fuzz target's temporary directory and serves it.
func fzServe(f *testing.F) *fzSite {
	f.Helper()
	ctx := context.Background()
	path := filepath.Join(f.TempDir(), "wp.db")
	db, err := wpdb.OpenSQLite(path, "wp_")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	res, err := db.Migrate(ctx, wpdb.MigrateOptions{SiteURL: "http://127.0.0.1:8080", Timezone: "Europe/Berlin",
		SiteName: "Fuzz", AdminLogin: "admin", AdminEmail: "admin@example.test"}, fzNow)
	if err != nil {
		f.Fatal(err)
	}
	store := service.Start(context.Background(), db, wpdb.SiteOverrides{}, service.Cold)
	site, err := store.Site(ctx)
	if err != nil {
		f.Fatal(err)
	}
	author, err := demo.Author(ctx, db, site, "", "admin@example.test")
	if err != nil {
		f.Fatal(err)
	}
	if _, err := demo.Fill(ctx, db, site, author, demo.Options{Events: 24, Seed: 11, Now: fzNow}); err != nil {
		f.Fatal(err)
	}
	raw, err := sql.Open("sqlite", wpdb.SQLiteDSN(path))
	if err != nil {
		f.Fatal(err)
	}
	defer raw.Close()
	s := &fzSite{auth: make([]string, len(fzRoles)), ids: map[string][]int64{}, slugs: map[string][]string{}, log: &fzLog{}}
	s.auth[len(fzRoles)-1] = basicHeader("admin", res.AppPassword)
	for i, role := range fzRoles[1 : len(fzRoles)-1] {
		pass := fzAddUser(f, raw, role)
		s.auth[i+1] = basicHeader(role, pass)
	}
	for kind, q := range map[string]string{
		"events":     "SELECT ID, post_name FROM wp_posts WHERE post_type = 'tribe_events' ORDER BY ID",
		"venues":     "SELECT ID, post_name FROM wp_posts WHERE post_type = 'tribe_venue' ORDER BY ID",
		"organizers": "SELECT ID, post_name FROM wp_posts WHERE post_type = 'tribe_organizer' ORDER BY ID",
		"categories": "SELECT t.term_id, t.slug FROM wp_terms t JOIN wp_term_taxonomy x ON x.term_id = t.term_id WHERE x.taxonomy = 'tribe_events_cat' ORDER BY t.term_id",
		"tags":       "SELECT t.term_id, t.slug FROM wp_terms t JOIN wp_term_taxonomy x ON x.term_id = t.term_id WHERE x.taxonomy = 'post_tag' ORDER BY t.term_id",
	} {
		rows, err := raw.Query(q)
		if err != nil {
			f.Fatal(err)
		}
		for rows.Next() {
			var id int64
			var slug string
			if err := rows.Scan(&id, &slug); err != nil {
				f.Fatal(err)
			}
			s.ids[kind] = append(s.ids[kind], id)
			s.slugs[kind] = append(s.slugs[kind], slug)
		}
		rows.Close()
		if len(s.ids[kind]) == 0 {
			f.Fatalf("the fuzz calendar has no %s", kind)
		}
	}
	cfg := handlers.Config{Environment: "local", Clock: func() time.Time { return fzNow },
		Logger: slog.New(slog.NewTextHandler(s.log, nil)),
		// The answers are checked, not the machine: no database deadline a loaded fuzzing machine
		// could pass, and no failed-login lockout.
		DBTimeout: time.Minute, Logins: handlers.LoginLimit{Off: true}}
	s.srv = serveLive(f, cfg, db)
	s.client = &http.Client{Timeout: time.Minute, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return s
}

func basicHeader(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// fzAddUser adds a user of the role with an application password, which it returns.
func fzAddUser(f *testing.F, raw *sql.DB, role string) string {
	f.Helper()
	hash, err := wpauth.HashPassword("unused login password " + role)
	if err != nil {
		f.Fatal(err)
	}
	res, err := raw.Exec(`INSERT INTO wp_users (user_login, user_pass, user_nicename, user_email, user_url, user_registered,
		user_activation_key, user_status, display_name) VALUES (?, ?, ?, ?, '', '2026-01-01 00:00:00', '', 0, ?)`,
		role, hash, role, role+"@example.test", role)
	if err != nil {
		f.Fatal(err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		f.Fatal(err)
	}
	apps, plain, _, err := wpauth.NewAppPasswordEntry("", "fuzz", fzNow.Unix())
	if err != nil {
		f.Fatal(err)
	}
	level := map[string]string{"subscriber": "0", "contributor": "1", "author": "2"}[role]
	for _, kv := range [][2]string{{"nickname", role}, {"wp_capabilities", fmt.Sprintf(`a:1:{s:%d:"%s";b:1;}`, len(role), role)},
		{"wp_user_level", level}, {"_application_passwords", apps}} {
		if _, err := raw.Exec("INSERT INTO wp_usermeta (user_id, meta_key, meta_value) VALUES (?, ?, ?)", id, kv[0], kv[1]); err != nil {
			f.Fatal(err)
		}
	}
	return wpauth.ChunkAppPassword(plain)
}

// fzRoutes are route templates; {event}, {venue}, … stand for an existing record's ID and
// {event-slug} … for its slug.
var fzRoutes = []string{
	"tribe/events/v1", "calendar/events/v1", "tribe/events/v1/doc", "tribe/events/v1/events", "tribe/events/v1/events/{event}",
	"tribe/events/v1/events/by-slug/{event-slug}", "tribe/events/v1/venues", "tribe/events/v1/venues/{venue}",
	"tribe/events/v1/venues/by-slug/{venue-slug}", "tribe/events/v1/organizers", "tribe/events/v1/organizers/{organizer}",
	"tribe/events/v1/organizers/by-slug/{organizer-slug}", "tribe/events/v1/categories", "tribe/events/v1/categories/{category}",
	"tribe/events/v1/tags", "tribe/events/v1/tags/{tag}", "calendar/events/v1/events/{event}", "", "tribe/events/v1/events/0",
	"tribe/events/v1/events/99999999999999999999", "TRIBE/Events/V1/EVENTS/", "tribe/events/v1/events/by-slug/%2e%2e",
}

var fzMethods = []string{"GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE", "GET", "GET", "PROPFIND"}

var fzContentTypes = []string{"application/json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=XB",
	"", "text/plain", "application/json; charset=utf-8", "multipart/form-data", "APPLICATION/JSON"}

// fzRoute fills a route template with the n-th record of its kind.
func (s *fzSite) fzRoute(tmpl string, n uint8) string {
	for _, k := range []struct{ ph, kind string }{{"event", "events"}, {"venue", "venues"}, {"organizer", "organizers"},
		{"category", "categories"}, {"tag", "tags"}} {
		ids, slugs := s.ids[k.kind], s.slugs[k.kind]
		tmpl = strings.ReplaceAll(tmpl, "{"+k.ph+"}", strconv.FormatInt(ids[int(n)%len(ids)], 10))
		tmpl = strings.ReplaceAll(tmpl, "{"+k.ph+"-slug}", slugs[int(n)%len(slugs)])
	}
	return tmpl
}

// fzQueryEscape makes fuzz text sendable as a request target's query without changing what the
// server decodes: bytes a request line cannot hold are %-encoded, everything else (bad
// %-escapes, "+", brackets) is sent as it is.
func fzQueryEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '#' {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// fzSend sends one request and checks its answer.
func (s *fzSite) fzSend(t *testing.T, method, target string, body []byte, ctype string, who uint8) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, s.srv.URL+"/", rd)
	if err != nil {
		t.Fatal(err)
	}
	path, query, _ := strings.Cut(target, "?")
	req.URL.Path, req.URL.RawQuery = path, fzQueryEscape(query)
	if p, err := url.PathUnescape(path); err == nil && p != path {
		req.URL.Path, req.URL.RawPath = p, path // %-escapes in the path are sent as written
	}
	if body != nil {
		req.Header.Set("Content-Type", ctype)
	}
	if a := s.auth[int(who)%len(s.auth)]; a != "" {
		req.Header.Set("Authorization", a)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, req.URL, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, req.URL, err)
	}
	if msg := fzCheckAnswer(resp, raw, method); msg != "" {
		t.Fatalf("%s %s (%s, as %q, body %.200q): %s\nanswer %d %.600s\nserver log:\n%s",
			method, req.URL.RequestURI(), ctype, fzRoles[int(who)%len(fzRoles)], body, msg, resp.StatusCode, raw, s.log.tail())
	}
}

// fzCheckAnswer returns what is wrong with an answer ("" when nothing is).
func fzCheckAnswer(resp *http.Response, raw []byte, method string) string {
	if resp.StatusCode >= 500 {
		return "a 5xx answer"
	}
	if method == "HEAD" || resp.StatusCode < 400 && !bytes.Contains(raw, []byte(`"body"`)) {
		return ""
	}
	// JSONP answers wrap the body: /**/name(...)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/javascript") {
		if i, j := bytes.IndexByte(raw, '('), bytes.LastIndexByte(raw, ')'); i >= 0 && j > i {
			raw = raw[i+1 : j]
		}
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		if resp.StatusCode >= 400 {
			return "an error answer that is not a JSON object: " + err.Error()
		}
		return ""
	}
	status := float64(resp.StatusCode)
	// _envelope: the real status and body inside a 200.
	if inner, ok := body["body"]; ok && len(body) == 3 && body["headers"] != nil {
		st, _ := body["status"].(float64)
		if st >= 500 {
			return "a 5xx answer in an envelope"
		}
		innerObj, isObj := inner.(map[string]any)
		if st < 400 {
			return ""
		}
		if !isObj {
			return "an enveloped error that is not an object"
		}
		body, status = innerObj, st
	} else if resp.StatusCode < 400 {
		return ""
	}
	code, _ := body["code"].(string)
	if _, ok := body["message"].(string); code == "" || !ok {
		return "an error without code and message"
	}
	data, ok := body["data"].(map[string]any)
	switch {
	case code == "rest_callback_invalid":
		return "" // WordPress' own JSONP refusal has no data
	case !ok:
		if _, isTerm := body["data"]; isTerm && status == 400 {
			return "" // wp_insert_term/wp_update_term errors keep their raw data, as WordPress sends them
		}
		return "an error without a data object"
	}
	if st, _ := data["status"].(float64); st != status {
		return fmt.Sprintf("an error whose data.status %v is not the answer's status %v", data["status"], status)
	}
	return ""
}

// FuzzHTTPQuery: any route, query string and method, without a body.
func FuzzHTTPQuery(f *testing.F) {
	seeds := []struct {
		route int
		query string
	}{
		{3, "per_page=5&page=2"}, {3, "start_date=2026-01-01&end_date=2027-12-31&strict_dates=true"},
		{3, "page=922337203685477580&per_page=10"}, {3, "per_page=50&page=184467440737095517"}, {12, "page=922337203685477580"},
		{3, "search=%25_%5C&categories[]=1&tags=a,b&venue=1&organizer=1,2&featured=1&status=draft,private"},
		{3, "geoloc=1&geoloc_lat=52.5&geoloc_lng=1e400"}, {3, "include=1,2,x&post_parent=-1&ticketed=maybe"},
		{3, "_fields=id,title.rendered&_envelope=1&_jsonp=cb"}, {3, "_jsonp=<script>"}, {3, "_method=DELETE"},
		{4, "_envelope"}, {5, "_pretty"}, {6, "only_with_upcoming=1&event=1"}, {9, "has_events=true&search=x"},
		{12, "hide_empty=0&orderby=count&order=desc&parent=0&post=1&include=1&exclude=2&slug=a"}, {14, "page=-5&per_page=0"},
		{3, "a" + strings.Repeat("[x]", 70) + "=1"}, {3, strings.Repeat("a[]=1&", 1100)}, {3, "starts_before=@-1&ends_after=+1000000 years"},
		{0, "context=edit"}, {2, ""}, {17, "rest_route=/tribe/events/v1/events&per_page=2"}, {19, ""}, {20, ""}, {21, ""},
		{3, "search=" + strings.Repeat("%F0%9F%8E%89", 200)}, {3, "per_page=%ff&page=%00"}, {3, "start_date=%5B%5D&end_date[a]=b"},
	}
	for i, sd := range seeds {
		f.Add(uint8(sd.route), sd.query, uint8(i%len(fzMethods)), uint8(i), uint8(i))
	}
	s := fzServe(f)
	f.Fuzz(func(t *testing.T, route uint8, query string, method, who, pick uint8) {
		r := s.fzRoute(fzRoutes[int(route)%len(fzRoutes)], pick)
		m := fzMethods[int(method)%len(fzMethods)]
		var target string
		switch pick % 4 {
		case 0, 1:
			target = "/wp-json/" + r + "?" + query
		case 2:
			target = "/?rest_route=/" + r + "&" + query
		default:
			target = "/index.php?" + query + "&rest_route=/" + r
		}
		s.fzSend(t, m, target, nil, "", who)
	})
}

// FuzzHTTPBody: any body and content type sent to the routes that write.
func FuzzHTTPBody(f *testing.F) {
	const (
		post, put, patch, del = 0, 1, 2, 3 // fzMethods[3+m]
		js, form, multi       = 0, 1, 2    // fzContentTypes
		anon, contributor     = 0, 2
		author, admin         = 3, 4
		events, event, bySlug = 3, 4, 5
		venues, venue         = 6, 7
		organizers, organizer = 9, 10
		categories, category  = 12, 13
		tags, tag             = 14, 15
	)
	seeds := []struct {
		route           int
		body            string
		method, ct, who uint8
	}{
		{events, `{"title":"Fuzz","start_date":"2027-01-01 10:00","end_date":"2027-01-01 11:00","description":"<script>x</script><b>ok</b>"}`, post, js, admin},
		{events, `{"title":"Fuzz","start_date":"2027-01-01 10:00","end_date":"2027-01-01 11:00","description":"<script>x</script><b onclick=x>ok</b>"}`, post, js, author},
		{events, `{"title":"T","all_day":true,"start_date":"tomorrow","end_date":"tomorrow","venue":{"venue":"New V","country":"DE"},"organizer":[{"organizer":"O"},1]}`, post, js, admin},
		{events, `{"title":"T","start_date":"2027-01-01 10:00","end_date":"2027-01-01 11:00","categories":[1,"music","new-cat"],"tags":["x",999999],"cost":"10 - 20 €"}`, post, js, contributor},
		{event, `{"title":"T","slug":"` + strings.Repeat("é", 300) + `","status":"future","date":"2030-01-01 00:00:00","featured":"yes","sticky":1}`, put, js, admin},
		{event, `{"title":"T","start_date":"2027-01-01 10:00","end_date":"2026-01-01 10:00","timezone":"Mars/Olympus","image":"http://x/y.png"}`, patch, js, admin},
		{event, `{"hide_from_listings":true,"show_map":"false","show_map_link":0,"password":"pw","excerpt":"<a href='javascript:1' onclick=x>e</a>"}`, post, js, author},
		{event, `{"start_date":null,"end_date":1e400,"venue":[],"organizer":"0"}`, post, js, admin},
		{event, `{"force":true}`, del, js, admin}, {event, ``, del, js, author}, {bySlug, `{"title":["x"]}`, patch, js, admin},
		{venues, `{"venue":"V","address":"A","city":"C","country":"US","state":"CA","zip":"1","phone":"1","website":"javascript:x","stateprovince":"x"}`, post, js, admin},
		{venue, `{"venue":"V2","show_map":true}`, put, js, author}, {venue, "venue=Form+Venue&country=%ff", post, form, admin},
		{organizers, `{"organizer":"O","email":"a@b","phone":"+1","website":"http://x"}`, post, js, admin},
		{organizer, `{"organizer":{"raw":"x"}}`, patch, js, admin}, {organizer, `{"force":"false"}`, del, js, admin},
		{categories, `{"name":"Cat","description":"<i>d</i><script>s</script>","parent":1,"slug":"x"}`, post, js, admin},
		{categories, `{"name":"` + strings.Repeat("x", 300) + `"}`, post, js, admin}, {categories, `{"name":""}`, post, js, admin},
		{category, `{"name":"Renamed","parent":99999999}`, put, js, admin}, {category, `{"force":true}`, del, js, admin},
		{tags, "name=Form+Tag&slug=%F0%9F%8E%89", post, form, admin}, {tag, `{"description":"d"}`, patch, js, author},
		{events, "title=Form&start_date=2027-01-01+10:00&end_date=2027-01-01+11:00&categories[]=1&description=%ff", post, form, admin},
		{events, "--XB\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nMultipart\r\n--XB\r\nContent-Disposition: form-data; name=\"start_date\"\r\n\r\n2027-01-01 10:00\r\n--XB--\r\n", post, multi, admin},
		{events, `[1,1,1]`, post, js, anon}, {events, `[{},{}]`, post, js, anon}, {events, `{"a":`, post, js, admin},
		{events, strings.Repeat("a[]=&", 1200), post, form, anon}, {events, `{"title":{"raw":"x"}}`, post, js, admin},
	}
	for i, sd := range seeds {
		f.Add(uint8(sd.route), []byte(sd.body), sd.method, sd.ct, sd.who, uint8(i))
	}
	s := fzServe(f)
	f.Fuzz(func(t *testing.T, route uint8, body []byte, method, ctype, who, pick uint8) {
		r := s.fzRoute(fzRoutes[int(route)%len(fzRoutes)], pick)
		m := fzMethods[3+int(method)%4] // POST, PUT, PATCH, DELETE
		s.fzSend(t, m, "/wp-json/"+r, body, fzContentTypes[int(ctype)%len(fzContentTypes)], who)
	})
}
