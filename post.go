package calendard

import "strings"

// Post types and taxonomies of The Events Calendar.
const (
	PostTypeEvent     = "tribe_events"
	PostTypeVenue     = "tribe_venue"
	PostTypeOrganizer = "tribe_organizer"
	PostTypeAttach    = "attachment"

	TaxonomyCategory = "tribe_events_cat"
	TaxonomyTag      = "post_tag"
)

// Post statuses WordPress registers (plus TEC's own), the set a "status" parameter may name.
var RegisteredStatuses = []string{
	"publish", "future", "draft", "pending", "private", "trash", "auto-draft", "inherit",
	"request-pending", "request-confirmed", "request-failed", "request-completed", "tribe-ignored",
}

// IsRegisteredStatus reports whether s is a post status WordPress knows.
func IsRegisteredStatus(s string) bool {
	for _, r := range RegisteredStatuses {
		if r == s {
			return true
		}
	}
	return false
}

// ZeroDate is how MySQL stores an unset DATETIME (e.g. post_date_gmt of drafts).
const ZeroDate = "0000-00-00 00:00:00"

// Post is one wp_posts row with its postmeta.
type Post struct {
	ID            int64
	Author        int64
	Date          string // post_date, site-local DB datetime
	DateGMT       string
	Content       string
	Title         string
	Excerpt       string
	Status        string
	CommentStatus string
	PingStatus    string
	Password      string
	Name          string // post_name (slug), may be URL-encoded for non-ASCII titles
	Modified      string
	ModifiedGMT   string
	Parent        int64
	GUID          string
	MenuOrder     int64
	Type          string
	MimeType      string

	Meta Meta
}

// Meta is a post's postmeta: every value of a key, in meta_id order.
type Meta map[string][]string

// Get returns the first value of key and whether the key has any row.
func (m Meta) Get(key string) (string, bool) {
	v, ok := m[key]
	if !ok || len(v) == 0 {
		return "", false
	}
	return v[0], true
}

// Value returns the first value of key, or "".
func (m Meta) Value(key string) string {
	v, _ := m.Get(key)
	return v
}

// Has reports whether key has at least one row.
func (m Meta) Has(key string) bool {
	_, ok := m.Get(key)
	return ok
}

// TruthyMeta is the PHP (bool) cast of a stored string: "" and "0" are false, anything else true.
func TruthyMeta(s string) bool { return s != "" && s != "0" }

// IsTruthyWord is tribe_is_truthy: the words WordPress plugins accept as "yes".
func IsTruthyWord(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "yes", "true", "on", "y", "enable", "enabled":
		return true
	}
	return false
}

// IsPublic reports whether the post is visible to anonymous callers by status.
func (p *Post) IsPublic() bool { return p.Status == "publish" }

// HasPassword reports whether the post is password protected.
func (p *Post) HasPassword() bool { return p.Password != "" }
