package calendard

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/calendard/calendard/internal/wptext"
)

// WriteTx is one database transaction of a write request: the primitive storage operations that
// WordPress' own write functions (wp_insert_post, update_post_meta, wp_set_object_terms, ...) are
// built from. Everything a request writes goes through one WriteTx, so it commits or rolls back whole.
type WriteTx interface {
	PostDeleteTx
	OptionWriteTx
	// LockPost returns the post with its meta and locks its row until the transaction ends; nil if
	// there is no such post.
	LockPost(ctx context.Context, id int64) (*Post, error)
	// InsertPost inserts the row under p.ID when it is set (import_id), else under a new ID.
	InsertPost(ctx context.Context, p *Post) (int64, error)
	// UpdatePost writes every column of the row.
	UpdatePost(ctx context.Context, p *Post) error
	// PostNameTaken reports whether another post (not excludeID) of the type has that post_name.
	PostNameTaken(ctx context.Context, name, postType string, excludeID int64) (bool, error)
	// PostsWithName returns posts of any type with that exact post_name and status.
	PostsWithName(ctx context.Context, name, status string, excludeID int64) ([]int64, error)
	// LatestRevision returns the newest revision of a post (or nil).
	LatestRevision(ctx context.Context, postID int64) (*Post, error)
	// LockSlugs serializes slug allocation for a post type until the transaction ends, so concurrent
	// creates cannot pick the same post_name.
	LockSlugs(ctx context.Context, postType string) error

	AddMeta(ctx context.Context, postID int64, key, value string) error
	// UpdateMetaRows sets every row of key to value and returns how many rows exist for the key.
	UpdateMetaRows(ctx context.Context, postID int64, key, value string) (int64, error)
	// DeleteMeta removes every row of key (value nil) or only rows holding value.
	DeleteMeta(ctx context.Context, postID int64, key string, value *string) error
	MetaValues(ctx context.Context, postID int64, key string) ([]string, error)
	// PostIDsByMeta returns the posts (lowest ID first) with a meta row of key holding value.
	PostIDsByMeta(ctx context.Context, key, value string) ([]int64, error)
	// MetaByKey returns every post's values of key, by post ID.
	MetaByKey(ctx context.Context, key string) (map[int64][]string, error)

	TermsOfObject(ctx context.Context, objectID int64, taxonomy string) ([]*Term, error)
	TermsOfTaxonomy(ctx context.Context, taxonomy string) ([]*Term, error)
	// TermByID returns the term of the taxonomy with that term_id (nil if none).
	TermByID(ctx context.Context, id int64, taxonomy string) (*Term, error)
	// TermBySlug returns the first term (by term_id) with that slug in the taxonomy, or in any
	// taxonomy when taxonomy is "".
	TermBySlug(ctx context.Context, slug, taxonomy string) (*Term, error)
	// TermsByName returns the taxonomy's terms with that (stored, sanitized) name, optionally only
	// children of parent.
	TermsByName(ctx context.Context, name, taxonomy string, parent *int64) ([]*Term, error)
	// TermsByParent returns the taxonomy's children of parent.
	TermsByParent(ctx context.Context, taxonomy string, parent int64) ([]*Term, error)
	// TermSlugTaken reports whether a term of any taxonomy (other than excludeID) has the slug.
	TermSlugTaken(ctx context.Context, slug string, excludeID int64) (bool, error)
	// DuplicateTermSlug reports whether an older term of t's taxonomy and parent has t's slug.
	DuplicateTermSlug(ctx context.Context, t *Term) (bool, error)
	AddTermRelationship(ctx context.Context, objectID, termTaxonomyID int64) error
	RemoveTermRelationships(ctx context.Context, objectID int64, termTaxonomyIDs []int64) error
	InsertTerm(ctx context.Context, t *Term) (*Term, error)
	UpdateTerm(ctx context.Context, t *Term) error
	DeleteTerm(ctx context.Context, t *Term) error
	// RecountTerms stores, for each term_taxonomy_id, the number of objects of the given post types
	// that are published (_update_post_term_count).
	RecountTerms(ctx context.Context, termTaxonomyIDs []int64, postTypes []string) error

	// FindPostByFields returns the lowest ID of a post of the type, not trashed, whose columns equal
	// the values under the database collation (Tribe__Duplicate__Post's "same" strategy), or 0.
	// Only post_title, post_content and post_excerpt may be named.
	FindPostByFields(ctx context.Context, postType string, fields []KV) (int64, error)
	// LinkedEventIDs returns the events a venue or organizer is linked to that TEC unlinks when it is
	// trashed (see LinkedEventsQuery).
	LinkedEventIDs(ctx context.Context, q LinkedEventsQuery) ([]int64, error)

	// The plugin's custom tables (tec_events, tec_occurrences).
	TECEvent(ctx context.Context, postID int64) (*TECEventRow, error)
	// UpsertTECEvent is the plugin's INSERT ... ON DUPLICATE KEY UPDATE keyed on post_id; on MySQL
	// an update still uses up an AUTO_INCREMENT value, as the plugin's statement does. It sets
	// row.EventID.
	UpsertTECEvent(ctx context.Context, row *TECEventRow) error
	Occurrence(ctx context.Context, postID int64) (*OccurrenceRow, error)
	// SaveOccurrence inserts a row (OccurrenceID 0, setting it) or replaces the row with that ID
	// (the plugin deletes and re-inserts it under the same ID).
	SaveOccurrence(ctx context.Context, row *OccurrenceRow) error
	HasCustomTables(ctx context.Context) bool

	// Now is the transaction's clock (the service clock).
	Now() time.Time
}

// TECEventRow is a tec_events row (EventID 0 inserts).
type TECEventRow struct {
	EventID                  int64
	PostID                   int64
	StartDate, EndDate       string
	Timezone                 string
	StartDateUTC, EndDateUTC string
	Duration                 int64
	Hash                     string
}

// OccurrenceRow is a tec_occurrences row (OccurrenceID 0 inserts).
type OccurrenceRow struct {
	OccurrenceID            int64
	EventID, PostID         int64
	StartDate, StartDateUTC string
	EndDate, EndDateUTC     string
	Duration                int64
	Hash                    string
}

// Writer runs a function in one transaction: it commits when fn returns nil and rolls back
// otherwise (also on panic). clock gives the transaction's notion of now.
type Writer interface {
	Write(ctx context.Context, clock func() time.Time, fn func(tx WriteTx) error) error
}

// PostArgs are the wp_insert_post arguments calendard uses; nil pointers keep the current value on
// update and take WordPress' default on insert.
type PostArgs struct {
	ID        int64 // 0 inserts
	Type      string
	Status    string
	Author    *int64
	Title     *string
	Content   *string
	Excerpt   *string
	Name      *string // requested slug (sanitized and made unique here)
	Password  *string
	Parent    *int64
	MenuOrder *int64
	// Date and DateGMT are explicit publication dates (DB datetimes); with neither, inserts use now
	// and updates of drafts are re-dated like wp_update_post does.
	Date, DateGMT *string
	// ResetDate forces post_date to now on update (the plugin sends an empty date).
	ResetDate bool
	// OnSaved runs once the row is written, where WordPress sets the post's terms and fires
	// save_post (before the revision is taken).
	OnSaved func(p *Post) error

	// ImportID is wp_insert_post's import_id: an insert takes this ID when no post has it (a
	// migration keeps the source's IDs, so links and bookmarks keep working).
	ImportID int64
	// Modified and ModifiedGMT, when set, are stored instead of the save's own modification dates:
	// a migration keeps the source's, so the answers do not change and a re-run can compare them.
	Modified, ModifiedGMT *string
	// MimeType and GUID are wp_insert_attachment's post_mime_type and guid (the file's URL); an
	// insert without a GUID gets the permalink.
	MimeType, GUID *string
	// NoRevision skips wp_save_post_revision on update: a migration copies posts, and a revision
	// would take a post ID the source's later posts are to keep.
	NoRevision bool
}

// floatingDate reports the statuses whose GMT date stays unset until publication.
func floatingDate(status string) bool {
	return status == "draft" || status == "pending" || status == "auto-draft"
}

// SavePost is wp_insert_post/wp_update_post for the post types calendard writes: slug sanitizing
// and uniqueness, publication and modification dates, future/publish switching, trash suffixes,
// changed-slug and changed-date records, revisions and term counts on status changes.
func SavePost(ctx context.Context, tx WriteTx, site *Site, user *User, a PostArgs) (*Post, error) {
	now := tx.Now()

	var before *Post
	p := &Post{Type: a.Type, CommentStatus: "closed", PingStatus: "closed", Status: a.Status}
	if a.ID != 0 {
		var err error
		if before, err = tx.LockPost(ctx, a.ID); err != nil {
			return nil, err
		}
		if before == nil {
			return nil, fmt.Errorf("post %d vanished", a.ID)
		}
		cp := *before
		p = &cp
		if a.Status != "" {
			p.Status = a.Status
		}
	}
	if p.Status == "" {
		p.Status = "draft"
	}
	if a.Author != nil {
		p.Author = *a.Author
	} else if before == nil {
		p.Author = user.ID
	}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&p.Title, a.Title)
	set(&p.Content, a.Content)
	set(&p.Excerpt, a.Excerpt)
	set(&p.Password, a.Password)
	// sanitize_post($postarr, 'db') runs the *_save_pre filters on every field of the merged post,
	// on every save (trash, untrash and fields the request left alone included): title_save_pre
	// trims (PHP's trim), and for users without unfiltered_html kses_init_filters adds
	// wp_filter_kses to titles and wp_filter_post_kses to content and excerpts.
	p.Title = strings.Trim(p.Title, " \t\n\r\x00\x0B")
	// default-filters.php adds convert_invalid_entities to content_save_pre and excerpt_save_pre
	// for everyone, before kses_init_filters adds kses at the same priority: it runs first.
	p.Content = wptext.ConvertInvalidEntities(p.Content)
	p.Excerpt = wptext.ConvertInvalidEntities(p.Excerpt)
	if !user.Can("unfiltered_html") {
		// _wp_kses_allow_pdf_objects compares with the host of wp_upload_dir()'s url.
		uploads := site.UploadsURL
		if uploads == "" {
			uploads = site.SiteURL + "/wp-content/uploads"
		}
		p.Title = wptext.FilterKses(p.Title)
		p.Content = wptext.FilterPostKses(p.Content, uploads)
		p.Excerpt = wptext.FilterPostKses(p.Excerpt, uploads)
	}
	// A post needs a title, content or excerpt.
	if p.Title == "" && p.Content == "" && p.Excerpt == "" {
		return nil, &Error{Code: "empty_content", Message: "Content, title, and excerpt are empty.", Status: 400}
	}
	if a.Parent != nil {
		p.Parent = *a.Parent
	}
	if a.MenuOrder != nil {
		p.MenuOrder = *a.MenuOrder
	}
	set(&p.MimeType, a.MimeType)

	if err := savePostDates(p, before, a, site, now); err != nil {
		return nil, err
	}
	if err := savePostSlug(ctx, tx, p, before, a, user); err != nil {
		return nil, err
	}

	if err := checkPostFieldLengths(p, before == nil); err != nil {
		return nil, err
	}
	if before == nil {
		if a.ImportID > 0 {
			taken, err := tx.LockPost(ctx, a.ImportID)
			if err != nil {
				return nil, err
			}
			if taken == nil {
				p.ID = a.ImportID
			}
		}
		id, err := tx.InsertPost(ctx, p)
		if err != nil {
			return nil, err
		}
		p.ID = id
		if p.Name == "" && !floatingDate(p.Status) {
			if p.Name, err = uniquePostSlug(ctx, tx, strconv.FormatInt(id, 10), id, p.Type); err != nil {
				return nil, err
			}
		}
		// wp_insert_post fills the empty GUID with get_permalink() on the stored home URL: pretty
		// for published and private posts, the plain form for the others.
		gs := *site
		gs.HomeURL = site.GUIDBase()
		p.GUID = gs.Permalink(p, true)
		if a.GUID != nil {
			p.GUID = guidForDB(*a.GUID)
		}
		if err := tx.UpdatePost(ctx, p); err != nil {
			return nil, err
		}
		p.Meta = Meta{}
		if a.OnSaved != nil {
			if err := a.OnSaved(p); err != nil {
				return nil, err
			}
		}
		return p, nil
	}
	p.GUID = guidForDB(p.GUID)
	if err := tx.UpdatePost(ctx, p); err != nil {
		return nil, err
	}
	if a.OnSaved != nil {
		if err := a.OnSaved(p); err != nil {
			return nil, err
		}
	}
	if err := postUpdated(ctx, tx, site, user, before, p, !a.NoRevision); err != nil {
		return nil, err
	}
	if err := addPostOrigin(ctx, tx, p); err != nil {
		return nil, err
	}
	return p, nil
}

// savePostDates sets the dates of the post being saved as wp_update_post and wp_insert_post do
// (nowLocal for a draft that never had one), its modification time, and the status a date
// decides (a published post dated at least a minute ahead is scheduled, a scheduled one in the
// past publishes).
func savePostDates(p, before *Post, a PostArgs, site *Site, now time.Time) error {
	nowLocal := now.In(site.Location).Format(DBDateTime)
	nowGMT := now.UTC().Format(DBDateTime)
	// wp_update_post clears the date of drafts that never had one, then wp_insert_post fills in.
	date, dateGMT := p.Date, p.DateGMT
	if before != nil && floatingDate(before.Status) && before.DateGMT == ZeroDate && a.Date == nil && a.DateGMT == nil {
		date, dateGMT = nowLocal, ""
	}
	if before == nil {
		date, dateGMT = "", ""
	}
	if a.ResetDate && a.Date == nil && a.DateGMT == nil {
		date, dateGMT = nowLocal, ""
	}
	if a.Date != nil {
		date, dateGMT = *a.Date, ""
		if a.DateGMT != nil {
			dateGMT = *a.DateGMT
		}
	} else if a.DateGMT != nil {
		date, dateGMT = "", *a.DateGMT
	}
	if date == "" || date == ZeroDate {
		if dateGMT == "" || dateGMT == ZeroDate {
			date = nowLocal
		} else {
			t, err := time.ParseInLocation(DBDateTime, dateGMT, time.UTC)
			if err != nil {
				return invalidDate()
			}
			date = t.In(site.Location).Format(DBDateTime)
		}
	}
	localT, err := time.ParseInLocation(DBDateTime, date, site.Location)
	if err != nil {
		return invalidDate()
	}
	if dateGMT == "" || dateGMT == ZeroDate {
		if floatingDate(p.Status) {
			dateGMT = ZeroDate
		} else {
			dateGMT = localT.UTC().Format(DBDateTime)
		}
	}
	p.Date, p.DateGMT = date, dateGMT
	if before != nil {
		p.Modified, p.ModifiedGMT = nowLocal, nowGMT
	} else {
		p.Modified, p.ModifiedGMT = date, dateGMT
	}
	if a.Modified != nil {
		p.Modified = *a.Modified
	}
	if a.ModifiedGMT != nil {
		p.ModifiedGMT = *a.ModifiedGMT
	}
	// A published post dated at least a minute ahead is scheduled; a scheduled one in the past publishes.
	if p.DateGMT != ZeroDate {
		if gmt, err := time.ParseInLocation(DBDateTime, p.DateGMT, time.UTC); err == nil {
			ahead := gmt.Sub(now.UTC().Truncate(time.Second))
			if p.Status == "publish" && ahead >= time.Minute {
				p.Status = "future"
			} else if p.Status == "future" && ahead < time.Minute {
				p.Status = "publish"
			}
		}
	}
	return nil
}

// savePostSlug sets the slug of the post being saved: the one asked for (or the stored one),
// given back on untrash and suffixed on trash, and made unique among the type's.
func savePostSlug(ctx context.Context, tx WriteTx, p, before *Post, a PostArgs, user *User) error {
	var err error
	// Slug: the one asked for, else (wp_update_post merges the stored row) the stored one.
	requested := ""
	if a.Name != nil {
		requested = *a.Name
	} else if before != nil {
		requested = before.Name
	}
	if p.Status == "pending" && !user.Can(CapsOf(p.Type).Publish) {
		// Contributors may not set the slug of a post pending review (publish_posts for new
		// posts, publish_post, which maps to the same capability, for updates).
		requested = ""
	}
	p.Name = insertPostName(requested, p.Title, p.Status, before)
	if before != nil && before.Status == "trash" && p.Status != "trash" {
		// Untrashing restores the slug the post had before it was trashed.
		if desired, _ := tx.MetaValues(ctx, p.ID, "_wp_desired_post_slug"); len(desired) > 0 && desired[0] != "" {
			p.Name = desired[0]
			if err := tx.DeleteMeta(ctx, p.ID, "_wp_desired_post_slug", nil); err != nil {
				return err
			}
		}
	}
	if p.Status != "trash" && p.Name != "" {
		// A trashed post still holding the slug (trashed before WordPress added suffixes) gives it up.
		if err := suffixTrashedHolders(ctx, tx, p.Name, p.ID); err != nil {
			return err
		}
	}
	if p.Status == "trash" && before != nil && before.Status != "trash" {
		// wp_add_trashed_suffix_to_post_name_for_post works from the stored slug.
		p.Name = before.Name
		if !strings.HasSuffix(p.Name, "__trashed") {
			if err := tx.AddMeta(ctx, p.ID, "_wp_desired_post_slug", p.Name); err != nil {
				return err
			}
			p.Name = truncateSlug(p.Name, 191) + "__trashed"
		}
	}
	if p.Name == "" && p.ID != 0 && !floatingDate(p.Status) {
		// An update whose slug sanitized to nothing: sanitize_title($post_title, $post_id).
		if p.Name = wptext.SanitizeTitle(p.Title); p.Name == "" {
			p.Name = strconv.FormatInt(p.ID, 10)
		}
	}
	if p.Name != "" && !floatingDate(p.Status) {
		if err := tx.LockSlugs(ctx, p.Type); err != nil {
			return err
		}
		if p.Name, err = uniquePostSlug(ctx, tx, p.Name, p.ID, p.Type); err != nil {
			return err
		}
	}
	return nil
}

// originMetaKeys are the plugin's origin markers per post type.
var originMetaKeys = map[string]string{PostTypeEvent: "_EventOrigin", PostTypeVenue: "_VenueOrigin", PostTypeOrganizer: "_OrganizerOrigin"}

// addPostOrigin is the plugin's addPostOrigin, hooked on wp_insert_post, so it runs after every
// save of an event, venue or organizer (updates, trash and untrash included), after save_post: a
// post whose origin marker is missing or falsy gets "events-calendar" added. Creates add it in their
// own write paths (saveEventMeta, the linked-post creation), at the point the plugin's hook fires.
func addPostOrigin(ctx context.Context, tx WriteTx, p *Post) error {
	key, ok := originMetaKeys[p.Type]
	if !ok {
		return nil
	}
	vals, err := tx.MetaValues(ctx, p.ID, key)
	if err != nil {
		return err
	}
	if len(vals) > 0 && vals[0] != "" && vals[0] != "0" {
		return nil
	}
	return tx.AddMeta(ctx, p.ID, key, eventOriginPlugin)
}

// insertPostName is wp_insert_post's "create a valid post name" step. An empty (PHP empty()) name
// is derived from the title, except for drafts and pending posts, which may have none. On an
// update, a stored name that is exactly what the old sanitization ('old-save': no accents
// removed, no special characters dropped) makes of its own urlencode()d form is kept; any other
// name, stored or sent, goes through sanitize_title(), so a stored "Café Night" or "café" comes
// back "cafe-night" or "cafe" (and wp_check_for_changed_slugs keeps the old one).
func insertPostName(requested, title, status string, before *Post) string {
	if requested == "" || requested == "0" {
		if floatingDate(status) {
			return ""
		}
		return wptext.SanitizeTitle(title)
	}
	check := wptext.SanitizeTitleForQuery(requested)
	if before != nil && strings.ToLower(phpURLEncode(requested)) == check && before.Name == check {
		return check
	}
	return wptext.SanitizeTitle(requested)
}

// phpURLEncode is PHP's urlencode: bytes other than ASCII letters, digits and "-_." become %XX
// (upper-case hex), a space "+".
func phpURLEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// postFieldLimits are the wp_posts columns a request can fill and their sizes, as wpdb's
// process_field_lengths checks them: VARCHAR columns in characters, TEXT columns in bytes. In
// wp_insert_post's column order, which is the order wpdb names failing fields in.
var postFieldLimits = []struct {
	name  string
	get   func(p *Post) string
	limit int
	bytes bool
}{
	{"post_content", func(p *Post) string { return p.Content }, 1<<32 - 1, true},
	{"post_title", func(p *Post) string { return p.Title }, 65535, true},
	{"post_excerpt", func(p *Post) string { return p.Excerpt }, 65535, true},
	{"post_password", func(p *Post) string { return p.Password }, 255, false},
	{"post_name", func(p *Post) string { return p.Name }, 200, false},
	{"guid", func(p *Post) string { return p.GUID }, 255, false},
}

// checkPostFieldLengths is wpdb's refusal of values longer than their column or not valid UTF-8
// (strip_invalid_text would change them): wp_insert_post then fails with db_insert_error
// (db_update_error on updates) and wpdb's message. WordPress answers it
// with status 500 and the message as data; it is the client's input, so calendard answers 400 with
// the usual {"status": 400} data.
func checkPostFieldLengths(p *Post, insert bool) error {
	var fields []string
	for _, f := range postFieldLimits {
		v := f.get(p)
		n := utf8.RuneCountInString(v)
		if f.bytes {
			n = len(v)
		}
		if n > f.limit || !utf8.ValidString(v) {
			fields = append(fields, f.name)
		}
	}
	if len(fields) == 0 {
		return nil
	}
	code := "db_update_error"
	if insert {
		code = "db_insert_error"
	}
	msg := wpdbFieldsError(fields)
	return &Error{Code: code, Message: msg, Status: 400}
}

// invalidDate is wp_insert_post's invalid_date error. WordPress sends it with status 500; calendard
// answers client mistakes with 400.
func invalidDate() *Error {
	return &Error{Code: "invalid_date", Message: "Invalid date.", Status: 400}
}

// suffixTrashedHolders is wp_add_trashed_suffix_to_post_name_for_trashed_posts: trashed posts (of
// any type) whose slug is name get the "__trashed" suffix and remember the slug.
func suffixTrashedHolders(ctx context.Context, tx WriteTx, name string, id int64) error {
	ids, err := tx.PostsWithName(ctx, name, "trash", id)
	if err != nil {
		return err
	}
	for _, hid := range ids {
		h, err := tx.LockPost(ctx, hid)
		if err != nil {
			return err
		}
		if h == nil || strings.HasSuffix(h.Name, "__trashed") {
			continue
		}
		if err := tx.AddMeta(ctx, hid, "_wp_desired_post_slug", h.Name); err != nil {
			return err
		}
		h.Name = truncateSlug(h.Name, 191) + "__trashed"
		if err := tx.UpdatePost(ctx, h); err != nil {
			return err
		}
	}
	return nil
}

// truncateSlug is _truncate_post_slug: cut at length bytes, keeping %XX escapes whole.
func truncateSlug(slug string, length int) string {
	if len(slug) <= length {
		return slug
	}
	cut := slug[:length]
	if i := strings.LastIndexByte(cut, '%'); i >= 0 && i > length-3 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, "-")
}

var feedSlugs = map[string]bool{"feed": true, "rdf": true, "rss": true, "rss2": true, "atom": true, "embed": true}

// uniquePostSlug is wp_unique_post_slug for non-hierarchical post types: "-2", "-3", ... until free.
func uniquePostSlug(ctx context.Context, tx WriteTx, slug string, id int64, postType string) (string, error) {
	taken, err := tx.PostNameTaken(ctx, slug, postType, id)
	if err != nil {
		return "", err
	}
	if !taken && !feedSlugs[slug] {
		return slug, nil
	}
	for suffix := 2; ; suffix++ {
		s := strconv.Itoa(suffix)
		alt := truncateSlug(slug, 200-(len(s)+1)) + "-" + s
		taken, err := tx.PostNameTaken(ctx, alt, postType, id)
		if err != nil {
			return "", err
		}
		if !taken {
			return alt, nil
		}
	}
}

// postUpdated runs what WordPress hooks on an update: changed-slug and changed-date records, the
// revision, and term counts when the status changed.
func postUpdated(ctx context.Context, tx WriteTx, site *Site, user *User, before, after *Post, revision bool) error {
	// wp_check_for_changed_slugs
	if after.Name != before.Name && after.Status == "publish" && before.Name != "" {
		olds, err := tx.MetaValues(ctx, after.ID, "_wp_old_slug")
		if err != nil {
			return err
		}
		if !contains(olds, before.Name) {
			if err := tx.AddMeta(ctx, after.ID, "_wp_old_slug", before.Name); err != nil {
				return err
			}
		}
		if contains(olds, after.Name) {
			v := after.Name
			if err := tx.DeleteMeta(ctx, after.ID, "_wp_old_slug", &v); err != nil {
				return err
			}
		}
	}
	// wp_check_for_changed_dates
	if after.Status == "publish" && len(before.Date) >= 10 && len(after.Date) >= 10 && before.Date[:10] != after.Date[:10] {
		olds, err := tx.MetaValues(ctx, after.ID, "_wp_old_date")
		if err != nil {
			return err
		}
		if !contains(olds, before.Date[:10]) {
			if err := tx.AddMeta(ctx, after.ID, "_wp_old_date", before.Date[:10]); err != nil {
				return err
			}
		}
		if contains(olds, after.Date[:10]) {
			v := after.Date[:10]
			if err := tx.DeleteMeta(ctx, after.ID, "_wp_old_date", &v); err != nil {
				return err
			}
		}
	}
	if revision {
		if err := SaveRevision(ctx, tx, site, user, after); err != nil {
			return err
		}
	}
	if before.Status != after.Status {
		return RecountObjectTerms(ctx, tx, after.ID, after.Type)
	}
	return nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// RevisionedTypes are the post types that keep revisions.
var RevisionedTypes = map[string]bool{PostTypeEvent: true, PostTypeVenue: true, PostTypeOrganizer: true, "post": true, "page": true}

// SaveRevision is wp_save_post_revision: a revision copying title, content and excerpt, written when
// the post has none yet or one of those fields changed since the latest.
func SaveRevision(ctx context.Context, tx WriteTx, site *Site, user *User, p *Post) error {
	if !RevisionedTypes[p.Type] || p.Status == "auto-draft" {
		return nil
	}
	latest, err := tx.LatestRevision(ctx, p.ID)
	if err != nil {
		return err
	}
	if latest != nil && normalizeWS(latest.Title) == normalizeWS(p.Title) &&
		normalizeWS(latest.Content) == normalizeWS(p.Content) && normalizeWS(latest.Excerpt) == normalizeWS(p.Excerpt) {
		return nil
	}
	rev := &Post{
		Author: user.ID, Date: p.Modified, DateGMT: p.ModifiedGMT, Modified: p.Modified, ModifiedGMT: p.ModifiedGMT,
		Title: p.Title, Content: p.Content, Excerpt: p.Excerpt, Status: "inherit", CommentStatus: "closed",
		PingStatus: "closed", Name: strconv.FormatInt(p.ID, 10) + "-revision-v1", Parent: p.ID, Type: "revision",
	}
	id, err := tx.InsertPost(ctx, rev)
	if err != nil {
		return err
	}
	rev.ID = id
	rev.GUID = site.GUIDBase() + "/?p=" + strconv.FormatInt(id, 10)
	return tx.UpdatePost(ctx, rev)
}

// normalizeWS is normalize_whitespace: trimmed, \r removed, runs of newlines and of blanks collapsed.
func normalizeWS(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r", ""))
	for strings.Contains(s, "\n\n") {
		s = strings.ReplaceAll(s, "\n\n", "\n")
	}
	var b strings.Builder
	blank := false
	for _, c := range s {
		if c == ' ' || c == '\t' {
			if !blank {
				b.WriteByte(' ')
			}
			blank = true
			continue
		}
		blank = false
		b.WriteRune(c)
	}
	return b.String()
}

// TrashPost is wp_trash_post: remember the status and time, then move the post to the trash.
func TrashPost(ctx context.Context, tx WriteTx, site *Site, user *User, p *Post) (*Post, error) {
	if err := tx.AddMeta(ctx, p.ID, "_wp_trash_meta_status", p.Status); err != nil {
		return nil, err
	}
	if err := tx.AddMeta(ctx, p.ID, "_wp_trash_meta_time", strconv.FormatInt(tx.Now().Unix(), 10)); err != nil {
		return nil, err
	}
	return SavePost(ctx, tx, site, user, PostArgs{ID: p.ID, Type: p.Type, Status: "trash"})
}

// UpdatePostMeta is update_post_meta: update every row of the key, or add one when there is none.
func UpdatePostMeta(ctx context.Context, tx WriteTx, postID int64, key, value string) error {
	n, err := tx.UpdateMetaRows(ctx, postID, key, value)
	if err != nil || n > 0 {
		return err
	}
	return tx.AddMeta(ctx, postID, key, value)
}

// TaxonomyObjectTypes are the post types each taxonomy is registered for (term counts count them).
var TaxonomyObjectTypes = map[string][]string{
	TaxonomyCategory: {PostTypeEvent},
	TaxonomyTag:      {"post", PostTypeEvent},
}

// taxonomiesOf are the taxonomies registered for a post type.
func taxonomiesOf(postType string) []string {
	switch postType {
	case PostTypeEvent:
		return []string{TaxonomyCategory, TaxonomyTag}
	case "post":
		return []string{"category", TaxonomyTag}
	}
	return nil
}

// RecountObjectTerms recounts every term a post has (WordPress does so when its status changes).
func RecountObjectTerms(ctx context.Context, tx WriteTx, postID int64, postType string) error {
	for _, tax := range taxonomiesOf(postType) {
		terms, err := tx.TermsOfObject(ctx, postID, tax)
		if err != nil {
			return err
		}
		if len(terms) == 0 {
			continue
		}
		ids := make([]int64, len(terms))
		for i, t := range terms {
			ids[i] = t.TaxonomyID
		}
		if err := tx.RecountTerms(ctx, ids, TaxonomyObjectTypes[tax]); err != nil {
			return err
		}
	}
	return nil
}

// SetObjectTerms is wp_set_object_terms(..., append false): the object's terms of the taxonomy become
// exactly ids (term_taxonomy rows), and the counts of added and removed terms are recomputed.
func SetObjectTerms(ctx context.Context, tx WriteTx, objectID int64, taxonomy string, terms []*Term) error {
	current, err := tx.TermsOfObject(ctx, objectID, taxonomy)
	if err != nil {
		return err
	}
	want := map[int64]bool{}
	var changed []int64
	for _, t := range terms {
		if want[t.TaxonomyID] {
			continue
		}
		want[t.TaxonomyID] = true
		had := false
		for _, c := range current {
			if c.TaxonomyID == t.TaxonomyID {
				had = true
				break
			}
		}
		if !had {
			if err := tx.AddTermRelationship(ctx, objectID, t.TaxonomyID); err != nil {
				return err
			}
		}
		changed = append(changed, t.TaxonomyID)
	}
	var removed []int64
	for _, c := range current {
		if !want[c.TaxonomyID] {
			removed = append(removed, c.TaxonomyID)
		}
	}
	if len(removed) > 0 {
		if err := tx.RemoveTermRelationships(ctx, objectID, removed); err != nil {
			return err
		}
	}
	changed = append(changed, removed...)
	if len(changed) == 0 {
		return nil
	}
	return tx.RecountTerms(ctx, changed, TaxonomyObjectTypes[taxonomy])
}

// Unslash is PHP's stripslashes() as wp_unslash() runs it: wp_insert_post() and update_post_meta()
// unslash what they store, and the plugin passes request values without slashing them first, so
// backslashes sent to its endpoints are lost, as in WordPress.
func Unslash(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			break
		}
		i++
		if s[i] == '0' {
			b.WriteByte(0)
		} else {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

var guidEntityRe = regexp.MustCompile(`^&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);`)

// guidForDB is the guid as wp_update_post stores it (sanitize_post 'db'): a lone "&" becomes
// "&#038;", so a draft's "?post_type=…&p=N" reads back with "&#038;" once the post is updated, as the
// reference's wp/v2 answers show.
func guidForDB(g string) string {
	if !strings.Contains(g, "&") {
		return g
	}
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		if g[i] == '&' && !guidEntityRe.MatchString(g[i:]) {
			b.WriteString("&#038;")
			continue
		}
		b.WriteByte(g[i])
	}
	return b.String()
}
