package calendard

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Site holds the WordPress and TEC options that shape API answers. It is read from wp_options; the
// HomeURL may be overridden by configuration.
type Site struct {
	Name, Description string // blogname, blogdescription
	GMTOffset         string // gmt_offset option as stored
	TimezoneName      string // timezone_string option as stored ("" for offset-only sites)

	HomeURL string // no trailing slash, e.g. "http://127.0.0.1:8088"
	// StoredHomeURL is the home option as stored (no trailing slash), before any override: what
	// WordPress writes into the GUIDs of new posts.
	StoredHomeURL string
	SiteURL       string // WordPress address (uploads live under it)
	// UploadsURL is wp_upload_dir()'s baseurl: the upload_url_path option, else siteurl with
	// /wp-content/uploads (or with a custom upload_path).
	UploadsURL string
	// UploadsDir is its basedir when calendard can know it (an absolute upload_path option), else "":
	// wp_get_attachment_url swaps it for UploadsURL at the start of a stored file path.
	UploadsDir       string
	PrettyPermalinks bool // permalink_structure is set: REST root is /wp-json/, permalinks are paths
	Charset          string

	// TimezoneString is what TEC shows as the site zone: timezone_string, or "UTC+2"-style from gmt_offset.
	TimezoneString string
	Location       *time.Location

	// PerPage is the default page size of every list (TEC posts_per_page, else WP posts_per_page, else
	// 20, capped at 50). PerPageRaw is the uncapped default as the namespace index shows it.
	PerPage    int
	PerPageRaw string
	// PerPageInvalid is the reference quirk of WP posts_per_page = -1: every list answers 400.
	PerPageInvalid bool

	DefaultCurrencySymbol   string
	DefaultCurrencyCode     string
	ReverseCurrencyPosition bool
	MultiDayCutoff          string // "HH:MM"
	TimezoneModeSite        bool   // tribe_events_timezone_mode == "site": filters compare UTC columns
	UseCustomTables         bool   // TEC custom tables (tec_occurrences) hold the dates list queries use
	RESTDisabled            bool
	CustomFields            []CustomField

	UsingAppPasswords bool
	Roles             map[string]Role

	EventSlug     string // single event permalink base, "event"
	EventsSlug    string // archive base, "events"
	VenueSlug     string
	OrganizerSlug string
	CategoryBase  string // "events/category"
	TagBase       string // "tag"

	PageOnFront, PageForPosts, PrivacyPage int64
}

// CustomField is a Pro "additional field" definition from the TEC custom-fields option.
type CustomField struct {
	Name  string // meta key, e.g. "_ecp_custom_2"
	Label string
}

// SiteZoneString builds TEC's site timezone string from the two WordPress options.
func SiteZoneString(timezoneString, gmtOffset string) string {
	if timezoneString != "" {
		return timezoneString
	}
	return OffsetZoneName(gmtOffset)
}

// OffsetZoneName renders a gmt_offset as TEC does: "UTC+0", "UTC-5", "UTC+5.5".
func OffsetZoneName(gmtOffset string) string {
	f, _ := strconv.ParseFloat(strings.TrimSpace(gmtOffset), 64)
	s := strconv.FormatFloat(math.Abs(f), 'f', -1, 64)
	if f < 0 {
		return "UTC-" + s
	}
	return "UTC+" + s
}

// LoadZone resolves a TEC/WordPress timezone string: IANA names, "UTC", and the offset forms
// "UTC+5.5", "UTC+5:30", "UTC-3".
func LoadZone(name string) (*time.Location, error) {
	if name == "" {
		return nil, fmt.Errorf("empty timezone")
	}
	if strings.HasPrefix(name, "UTC") && len(name) > 3 && (name[3] == '+' || name[3] == '-') {
		secs, ok := parseOffset(name[3:])
		if !ok {
			return nil, fmt.Errorf("bad offset zone %q", name)
		}
		return time.FixedZone(name, secs), nil
	}
	if strings.EqualFold(name, "UTC") {
		return time.UTC, nil
	}
	// time.LoadLocation reads and parses tzdata on every call; a Location is immutable, and the
	// names that load are a bounded set (tzdata's), so they are kept.
	if l, ok := zoneCache.Load(name); ok {
		return l.(*time.Location), nil
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	zoneCache.Store(name, l)
	return l, nil
}

var zoneCache sync.Map // IANA name → *time.Location

// parseOffset reads "+5", "-5.5", "+5:30" into seconds east of UTC.
func parseOffset(s string) (int, bool) {
	sign := 1
	if s[0] == '-' {
		sign = -1
	}
	s = s[1:]
	if h, m, ok := strings.Cut(s, ":"); ok {
		hh, err1 := strconv.Atoi(h)
		mm, err2 := strconv.Atoi(m)
		if err1 != nil || err2 != nil || mm >= 60 {
			return 0, false
		}
		return sign * (hh*3600 + mm*60), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f > 14 {
		return 0, false
	}
	return sign * int(math.Round(f*3600)), true
}

// DBDateTime is the MySQL DATETIME layout WordPress stores.
const DBDateTime = "2006-01-02 15:04:05"

// CutoffOffset returns the multiDayCutoff as a duration after midnight.
func (s *Site) CutoffOffset() time.Duration {
	h, m, ok := strings.Cut(s.MultiDayCutoff, ":")
	if !ok {
		return 0
	}
	hh, _ := strconv.Atoi(h)
	mm, _ := strconv.Atoi(m)
	return time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute
}

// Permalink returns the public URL of a post as WordPress' get_permalink would for the default TEC
// rewrite structure. Posts whose status is not publicly viewable get the plain "?post_type=&p="
// form (wp_force_plain_post_permalink); private posts keep their pretty URL only for readers who may
// read them, which the caller decides.
func (s *Site) Permalink(p *Post, canReadPrivate bool) string {
	slug := ""
	switch p.Type {
	case PostTypeEvent:
		slug = s.EventSlug
	case PostTypeVenue:
		slug = s.VenueSlug
	case PostTypeOrganizer:
		slug = s.OrganizerSlug
	}
	plain := p.Status != "publish" && !(p.Status == "private" && canReadPrivate)
	if plain || p.Name == "" {
		return s.HomeURL + "/?post_type=" + p.Type + "&p=" + strconv.FormatInt(p.ID, 10)
	}
	if !s.PrettyPermalinks {
		return s.HomeURL + "/?" + p.Type + "=" + p.Name
	}
	return s.HomeURL + "/" + slug + "/" + p.Name + "/"
}

// TermLink returns the public archive URL of a term.
func (s *Site) TermLink(t *Term) string {
	if !s.PrettyPermalinks {
		if t.Taxonomy == TaxonomyTag {
			return s.HomeURL + "/?tag=" + t.Slug
		}
		return s.HomeURL + "/?" + t.Taxonomy + "=" + t.Slug
	}
	base := s.CategoryBase
	if t.Taxonomy == TaxonomyTag {
		base = s.TagBase
	}
	return s.HomeURL + "/" + base + "/" + t.Slug + "/"
}

// GlobalID is TEC's global_id: host and path of the home URL plus "?id=" (no scheme, no port).
func (s *Site) GlobalID(id int64) string {
	u := s.HomeURL
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	host, path, _ := strings.Cut(u, "/")
	if h, _, ok := strings.Cut(host, ":"); ok {
		host = h
	}
	if path != "" {
		host += "/" + strings.TrimSuffix(path, "/")
	}
	return host + "?id=" + strconv.FormatInt(id, 10)
}

// OffsetHours is get_option('gmt_offset') as WordPress reports it: with a named zone, the zone's
// offset at the given instant, in hours.
func (s *Site) OffsetHours(now time.Time) float64 {
	if s.TimezoneName != "" && s.Location != nil {
		_, secs := now.In(s.Location).Zone()
		return float64(secs) / 3600
	}
	f, _ := strconv.ParseFloat(strings.TrimSpace(s.GMTOffset), 64)
	return f
}

// GUIDBase is the home URL new posts' GUIDs are built from (get_option('home')): the stored option,
// not the address calendard is configured to answer under.
func (s *Site) GUIDBase() string {
	if s.StoredHomeURL != "" {
		return s.StoredHomeURL
	}
	return s.HomeURL
}
