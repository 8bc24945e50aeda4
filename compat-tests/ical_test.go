package compattests

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/internal/wpauth"
)

// icalCase is one case of an *-ical set: a front-end request and the exact text answered.
type icalCase struct {
	Name    string `json:"name"`
	Now     string `json:"now"`
	Request struct {
		Method  string      `json:"method"`
		Path    string      `json:"path"`
		Query   [][2]string `json:"query"`
		Auth    *string     `json:"auth"`
		AuthVia *string     `json:"auth_via"`
	} `json:"request"`
	Response struct {
		Status   int               `json:"status"`
		Headers  map[string]string `json:"headers"`
		BodyText string            `json:"body_text"`
	} `json:"response"`
	VaryLines []string `json:"vary_lines"`
}

type icalMeta struct {
	RecordedAt string `json:"recorded_at"`
	SiteURL    string `json:"site_url"`
	Users      []struct {
		Login       string `json:"login"`
		AppPassword string `json:"app_password"`
	} `json:"users"`
	Keys map[string]string `json:"wp_config_keys"`
}

func loadICalSet(t *testing.T, dir string) (icalMeta, []*icalCase) {
	var meta icalMeta
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []*icalCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		c := &icalCase{}
		if err := json.Unmarshal(sc.Bytes(), c); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	return meta, cases
}

// icalDropped are the response headers the recordings leave out.
var icalDropped = map[string]bool{"Date": true, "Server": true, "Connection": true, "Keep-Alive": true,
	"Transfer-Encoding": true, "Content-Length": true, "Set-Cookie": true}

// withoutVaryLines drops the LOCATION lines a case's vary_lines name (LOCATION@<post id>: the line in
// the VEVENT whose UID starts with "<post id>-").
func withoutVaryLines(body string, vary []string) string {
	if len(vary) == 0 {
		return body
	}
	drop := map[string]bool{}
	for _, v := range vary {
		prop, id, _ := strings.Cut(v, "@")
		drop[prop+"@"+id] = true
	}
	var out []string
	var block []string
	in := false
	for _, l := range strings.Split(body, "\r\n") {
		switch {
		case l == "BEGIN:VEVENT":
			in, block = true, []string{l}
		case in && l == "END:VEVENT":
			block = append(block, l)
			id := ""
			for _, bl := range block {
				if uid, ok := strings.CutPrefix(bl, "UID:"); ok {
					id, _, _ = strings.Cut(uid, "-")
				}
			}
			for _, bl := range block {
				prop, _, _ := strings.Cut(bl, ":")
				prop, _, _ = strings.Cut(prop, ";")
				if !drop[prop+"@"+id] {
					out = append(out, bl)
				}
			}
			in = false
		case in:
			block = append(block, l)
		default:
			out = append(out, l)
		}
	}
	return strings.Join(out, "\r\n")
}

// TestCompatICal replays the recorded iCal exports (site-a-ical, on the site-a fixture) on both
// stores with the clock frozen at each case's now: status, every recorded header and the body text
// exactly, but for the case's vary_lines. Logged-in cases carry a wordpress_logged_in_* cookie
// minted with the reference's keys and a session token stored in the user's session_tokens.
func TestCompatICal(t *testing.T) {
	testenv.SkipIfShort(t, "the iCal compatibility set: calendard built and replayed against MariaDB")
	ctx := context.Background()
	meta, cases := loadICalSet(t, filepath.Join("testdata", "site-a-ical"))
	fixture := filepath.Join("testdata", "site-a", "fixture.sql")
	db := localServer(t)
	if err := db.CreateDatabase(ctx, "compat_ical"); err != nil {
		t.Fatal(err)
	}
	if err := db.LoadSQL(ctx, "compat_ical", fixture); err != nil {
		t.Fatal(err)
	}
	keys := wpauth.LoggedInKeys{Key: meta.Keys["LOGGED_IN_KEY"], Salt: meta.Keys["LOGGED_IN_SALT"]}
	cookies, cookieName := mintSessions(t, ctx, db.DSN("compat_ical"), meta, keys)
	bin, err := BuildBinary(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	filter := func(string) bool { return true }
	if expr := os.Getenv("COMPAT_RUN"); expr != "" {
		filter = regexp.MustCompile(expr).MatchString
	}
	stores := []struct {
		name string
		open func(t *testing.T) (Store, error)
	}{
		{"mysql", func(t *testing.T) (Store, error) { return NewMySQLStore(ctx, db, "compat_ical", "compat_ical_run") }},
		{"sqlite", func(t *testing.T) (Store, error) { return NewSQLiteStore(ctx, bin, db, "compat_ical", t.TempDir()) }},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			store, err := st.open(t)
			if err != nil {
				t.Fatal(err)
			}
			r := &runner{t: t, ctx: ctx, bin: bin, store: store, env: map[string]string{
				"CALENDAR_LOGGED_IN_KEY": keys.Key, "CALENDAR_LOGGED_IN_SALT": keys.Salt}}
			t.Cleanup(func() {
				r.stop()
				store.Close()
			})
			groups := map[string][2]int{} // group → passed, total
			for _, c := range cases {
				if !filter(c.Name) {
					continue
				}
				r.ensure(c.Now)
				g := icalGroup(c.Name)
				n := groups[g]
				n[1]++
				if msg := replayICal(r.svc, meta, c, cookieName, cookies); msg != "" {
					t.Errorf("%s: %s", c.Name, msg)
				} else {
					n[0]++
				}
				groups[g] = n
			}
			names := make([]string, 0, len(groups))
			for g := range groups {
				names = append(names, g)
			}
			sort.Strings(names)
			for _, g := range names {
				t.Logf("%-12s %3d/%d as recorded", g, groups[g][0], groups[g][1])
			}
		})
	}
}

func icalGroup(name string) string {
	parts := strings.Split(name, "/")
	if len(parts) > 2 {
		return parts[1]
	}
	return name
}

// mintSessions stores a session token for every user of the set (session_tokens user meta, as
// WP_Session_Tokens::create does) and returns each user's logged-in cookie value, made as
// wp_generate_auth_cookie does, and the cookie's name (md5 of the siteurl option).
func mintSessions(t *testing.T, ctx context.Context, dsn string, meta icalMeta, keys wpauth.LoggedInKeys) (map[string]string, string) {
	conn, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	now, err := time.Parse(time.DateTime, meta.RecordedAt)
	if err != nil {
		t.Fatal(err)
	}
	exp := now.Add(14 * 24 * time.Hour).Unix()
	var siteURL string
	if err := conn.QueryRowContext(ctx, "SELECT option_value FROM wp_options WHERE option_name = 'siteurl'").Scan(&siteURL); err != nil {
		t.Fatal(err)
	}
	cookies := map[string]string{}
	for _, u := range meta.Users {
		var id int64
		var pass string
		if err := conn.QueryRowContext(ctx, "SELECT ID, user_pass FROM wp_users WHERE user_login = ?", u.Login).Scan(&id, &pass); err != nil {
			t.Fatal(err)
		}
		token := fmt.Sprintf("compat-token-%s-0123456789abcdef0123456789", u.Login)
		if _, err := conn.ExecContext(ctx, "DELETE FROM wp_usermeta WHERE user_id = ? AND meta_key = 'session_tokens'", id); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, "INSERT INTO wp_usermeta (user_id, meta_key, meta_value) VALUES (?, 'session_tokens', ?)",
			id, wpauth.SessionTokens(token, exp, now.Unix())); err != nil {
			t.Fatal(err)
		}
		cookies[u.Login] = wpauth.GenerateAuthCookie(keys, u.Login, pass, exp, token)
	}
	return cookies, wpauth.LoggedInCookieName(siteURL)
}

// replayICal sends one case and returns what differs ("" when the answer is the recorded one).
func replayICal(svc *Service, meta icalMeta, c *icalCase, cookieName string, cookies map[string]string) string {
	parts := make([]string, 0, len(c.Request.Query))
	for _, kv := range c.Request.Query {
		parts = append(parts, url.QueryEscape(kv[0])+"="+url.QueryEscape(kv[1]))
	}
	u := svc.Base + c.Request.Path
	if len(parts) > 0 {
		u += "?" + strings.Join(parts, "&")
	}
	req, err := http.NewRequest(c.Request.Method, u, nil)
	if err != nil {
		return err.Error()
	}
	if c.Request.Auth != nil && c.Request.AuthVia != nil {
		switch *c.Request.AuthVia {
		case "cookie":
			req.AddCookie(&http.Cookie{Name: cookieName, Value: url.QueryEscape(cookies[*c.Request.Auth])})
		case "basic":
			for _, usr := range meta.Users {
				if usr.Login == *c.Request.Auth {
					req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(usr.Login+":"+usr.AppPassword)))
				}
			}
		}
	}
	noRedirect := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	resp, err := noRedirect.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err.Error()
	}
	var diffs []string
	if resp.StatusCode != c.Response.Status {
		diffs = append(diffs, fmt.Sprintf("status %d, want %d", resp.StatusCode, c.Response.Status))
	}
	respell := func(s string) string { return strings.ReplaceAll(s, meta.SiteURL, svc.Base) }
	for k, want := range c.Response.Headers {
		if got := resp.Header.Get(k); got != respell(want) {
			diffs = append(diffs, fmt.Sprintf("header %s = %q, want %q", k, got, respell(want)))
		}
	}
	for k := range resp.Header {
		if _, ok := c.Response.Headers[k]; !ok && !icalDropped[k] {
			diffs = append(diffs, fmt.Sprintf("header %s = %q not recorded", k, resp.Header.Get(k)))
		}
	}
	want := withoutVaryLines(respell(c.Response.BodyText), c.VaryLines)
	got := withoutVaryLines(string(raw), c.VaryLines)
	if got != want {
		diffs = append(diffs, "body differs:\n"+lineDiff(want, got))
	}
	return strings.Join(diffs, "; ")
}

// lineDiff shows the first lines where two bodies part.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\r\n"), strings.Split(got, "\r\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("  line %d (of %d, got %d lines):\n  want %q\n  got  %q", i+1, len(w), len(g), wl, gl)
		}
	}
	return "  (line ends differ)"
}
