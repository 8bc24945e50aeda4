// Package ical serves the plugin's iCalendar exports (Tribe__Events__iCal): the front-end pages of
// the calendar's views asked for with ical or outlook-ical in the query, or a path ending in
// /ical/. route.go reads the page a URL names (the site's permalink settings), select.go picks
// the events of that page as the plugin's views do, writer.go and vtimezone.go write the ICS text.
// It reads the store through the narrow interfaces below; internal/service wires them.
package ical

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/wpauth"
	"github.com/calendard/calendard/internal/wptext"
)

// SiteSource yields the current site settings.
type SiteSource interface {
	Site(ctx context.Context) (*calendard.Site, error)
}

// Posts reads posts by ID and by slug.
type Posts interface {
	PostByID(ctx context.Context, id int64) (*calendard.Post, error)
	PostsByName(ctx context.Context, name string, postTypes ...string) ([]*calendard.Post, error)
	// PostByNamePrefix is redirect_guess_404_permalink's lookup (wpdb.DB.PostByNamePrefix).
	PostByNamePrefix(ctx context.Context, prefix string, postTypes, statuses []string) (*calendard.Post, error)
}

// Terms lists a taxonomy's terms.
type Terms interface {
	TermsOf(ctx context.Context, taxonomy string) ([]*calendard.Term, error)
}

// Users finds the user a logged-in cookie names.
type Users interface {
	UserByLogin(ctx context.Context, login string) (*calendard.UserRecord, error)
}

// Options reads raw wp_options values (siteurl names the login cookie).
type Options interface {
	Options(ctx context.Context, names ...string) (map[string]string, error)
}

// Deps are the services the exports read.
type Deps struct {
	Site    SiteSource
	Events  calendard.EventService
	Posts   Posts
	Terms   Terms
	Users   Users
	Options Options
}

// Handler answers the export requests.
type Handler struct {
	deps  Deps
	keys  wpauth.LoggedInKeys
	clock func() time.Time
	log   *slog.Logger
	// timeout bounds the database work of one export.
	timeout time.Duration
}

// New returns the handler; keys validate WordPress' logged-in cookie (none: every request is
// anonymous).
func New(deps Deps, keys wpauth.LoggedInKeys, clock func() time.Time, log *slog.Logger) *Handler {
	if clock == nil {
		clock = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	return &Handler{deps: deps, keys: keys, clock: clock, log: log, timeout: 10 * time.Second}
}

var noCache = [][2]string{
	{"Expires", "Wed, 11 Jan 1984 05:00:00 GMT"},
	{"Cache-Control", "no-cache, must-revalidate, max-age=0, no-store, private"},
}

// answer is what one export request gets.
type answer struct {
	status   int
	location string // a redirect
	feed     *feed  // nil: an empty body
	noCache  bool
	noRobots bool // no X-Robots-Tag (the reference's 404 of a featured rewrite)
	pingback bool // X-Pingback (handle_404: a singular page whose post takes pings)
}

// Serve answers r when it asks for an export and reports whether it did.
func (h *Handler) Serve(c *gin.Context) bool {
	if c.Request.Method != http.MethodGet && c.Request.Method != http.MethodHead {
		return false
	}
	pr := parseRequest(c.Request.URL)
	if !pr.export {
		return false
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), h.timeout)
	defer cancel()
	site, err := h.deps.Site.Site(ctx)
	if err != nil {
		h.fail(c, err)
		return true
	}
	now := h.clock()
	user := h.user(ctx, c.Request, site, now)
	a, err := h.resolve(ctx, site, user, pr, now)
	if err == nil {
		pg := pr.readPage(site.EventsSlug, site.EventSlug, site.CategoryBase, site.TagBase)
		a.pingback, err = h.pingbackOpen(ctx, site, user, pr, pg)
	}
	if err != nil {
		h.fail(c, err)
		return true
	}
	// WordPress' wp_robots noindex for the feed is added only on a truthy ical or an outlook-ical
	// request variable, not on the /ical/ rewrite alone.
	if v := pr.query.Get("ical"); (v == "" || v == "0") && !pr.outlook {
		a.noRobots = true
	}
	h.write(c, site, user, a)
	return true
}

func (h *Handler) fail(c *gin.Context, err error) {
	h.log.Error("ical export", "err", err)
	c.Header("Content-Type", "application/json; charset=UTF-8")
	c.String(503, `{"code":"service_unavailable","message":"The database is not reachable.","data":{"status":503}}`)
}

func (h *Handler) write(c *gin.Context, site *calendard.Site, user *calendard.User, a *answer) {
	hd := c.Writer.Header()
	body := ""
	if a.feed != nil {
		hd.Set("Content-Type", "text/calendar; charset=UTF-8")
	} else {
		hd.Set("Content-Type", "text/html; charset=UTF-8")
	}
	if a.noCache || user.LoggedIn() {
		for _, kv := range noCache {
			hd.Set(kv[0], kv[1])
		}
	}
	if !a.noRobots {
		hd.Set("X-Robots-Tag", "noindex, nofollow")
	}
	if a.pingback {
		hd.Set("X-Pingback", site.SiteURL+"/xmlrpc.php")
	}
	if a.location != "" {
		hd.Set("X-Redirect-By", "WordPress")
		hd.Set("Location", a.location)
	}
	if a.feed != nil {
		hd.Set("Content-Disposition", `attachment; filename="`+a.feed.filename()+`"`)
		body = a.feed.write()
	}
	c.Status(a.status)
	if c.Request.Method == http.MethodHead {
		c.Writer.WriteHeaderNow()
		return
	}
	_, _ = c.Writer.WriteString(body)
}

// user is the logged-in user of a valid wordpress_logged_in_* cookie, or Anonymous. Application
// passwords are not read: WordPress ignores them on front-end pages.
func (h *Handler) user(ctx context.Context, r *http.Request, site *calendard.Site, now time.Time) *calendard.User {
	if !h.keys.Set() || h.deps.Users == nil || h.deps.Options == nil {
		return calendard.Anonymous
	}
	opts, err := h.deps.Options.Options(ctx, "siteurl")
	if err != nil {
		return calendard.Anonymous
	}
	ck, err := r.Cookie(wpauth.LoggedInCookieName(opts["siteurl"]))
	if err != nil {
		return calendard.Anonymous
	}
	parsed, ok := wpauth.ParseAuthCookie(wpauth.CookieValue(ck.Value))
	if !ok {
		return calendard.Anonymous
	}
	rec, err := h.deps.Users.UserByLogin(ctx, parsed.Username)
	if err != nil || rec == nil {
		return calendard.Anonymous
	}
	if !wpauth.VerifyCookie(h.keys, parsed, rec.Pass, rec.SessionTokens, now) {
		return calendard.Anonymous
	}
	return calendard.UserFromRecord(site, rec)
}

func md5hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func newFeed(site *calendard.Site, pr *request, user *calendard.User, now time.Time) *feed {
	return &feed{site: site, outlook: pr.outlook, now: now, rc: wptext.NewRenderContext(site.HomeURL),
		content: func(p *calendard.Post) bool { return p.Password == "" }}
}
