package calendard

import (
	"context"
	"errors"
	"fmt"

	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/wptext"
)

// Venue and organizer writes: Tribe__Events__Venue / Tribe__Events__Organizer create(), update() and
// save_meta() as the REST endpoints drive them, and what trashing one does to the events using it.
//
// The plugin works on a PHP array built by the endpoint's prepare_postarr() ("Venue", "Address",
// "post_date", "FeaturedImage", ...) and copies most of it into meta with a "_Venue"/"_Organizer"
// prefix, so the array is modelled as it is (LinkedArray) and the quirks follow from the same steps:
// "_Venuepost_date" rows, "_Organizerpost_status", StateProvince derivation, map flags.

// LinkedArray is an ordered PHP array of a venue/organizer write. Values are PHP scalars (string,
// int64, float64, bool, json.Number) or arrays as decoded from JSON; nil means "not set".
type LinkedArray []KV

// Get returns the value of key and whether it is set (PHP isset: present and not null).
func (a LinkedArray) Get(key string) (any, bool) {
	for _, kv := range a {
		if kv.Key == key {
			return kv.Value, kv.Value != nil
		}
	}
	return nil, false
}

// Set assigns key, keeping its position or appending it.
func (a *LinkedArray) Set(key string, v any) {
	for i, kv := range *a {
		if kv.Key == key {
			(*a)[i].Value = v
			return
		}
	}
	*a = append(*a, KV{Key: key, Value: v})
}

// Delete is unset($a[$key]).
func (a *LinkedArray) Delete(key string) {
	out := (*a)[:0]
	for _, kv := range *a {
		if kv.Key != key {
			out = append(out, kv)
		}
	}
	*a = out
}

func (a LinkedArray) clone() LinkedArray { return append(LinkedArray(nil), a...) }

// linkedKind holds the names that differ between the two linked post types.
type linkedKind struct {
	name       string   // array key of the post title ("Venue")
	prefix     string   // meta key prefix ("_Venue")
	idKey      string   // array key of the post ID ("VenueID")
	unnamed    string   // title used when only other data was given
	dataKeys   []string // has_venue_data / has_organizer_data keys
	origin     string   // meta key of the origin marker
	skipInMeta []string // post fields save_meta never copies into meta
}

var (
	venueKind = linkedKind{name: "Venue", prefix: "_Venue", idKey: "VenueID", unnamed: "Unnamed Venue",
		dataKeys: []string{"Venue", "Address", "City", "Province", "State", "StateProvince", "Province", "Zip", "Phone"},
		origin:   "_VenueOrigin", skipInMeta: []string{"post_title", "post_excerpt", "post_content", "post_status"}}
	organizerKind = linkedKind{name: "Organizer", prefix: "_Organizer", idKey: "OrganizerID", unnamed: "Unnamed Organizer",
		dataKeys: []string{"Organizer", "Phone", "Email", "Website"}, origin: "_OrganizerOrigin"}
)

func kindOf(postType string) (linkedKind, error) {
	switch postType {
	case PostTypeVenue:
		return venueKind, nil
	case PostTypeOrganizer:
		return organizerKind, nil
	}
	return linkedKind{}, fmt.Errorf("%q is not a linked post type", postType)
}

// linkedPostColumns are Tribe__Duplicate__Post::$post_table_columns: update() never copies them
// into meta.
var linkedPostColumns = map[string]bool{
	"ID": true, "post_author": true, "post_date": true, "post_date_gmt": true, "post_content": true,
	"post_title": true, "post_excerpt": true, "post_status": true, "comment_status": true, "ping_status": true,
	"post_password": true, "post_name": true, "to_ping": true, "pinged": true, "post_modified": true,
	"post_modified_gmt": true, "post_content_filtered": true, "post_parent": true, "guid": true,
	"menu_order": true, "post_type": true, "post_mime_type": true, "comment_count": true,
}

// CreateLinked is Tribe__Events__Venue::create / Tribe__Events__Organizer::create with the REST API's
// duplicate avoidance: it returns the new post's ID, the ID of an existing post with the same title
// (and content, when one is given) whose meta it then overwrites, or 0 when the data names nothing to
// create or WordPress refuses the post (the endpoint answers could-not-create-*).
func CreateLinked(ctx context.Context, tx WriteTx, site *Site, user *User, postType string, data LinkedArray, avoidDuplicates bool) (int64, error) {
	k, err := kindOf(postType)
	if err != nil {
		return 0, err
	}
	data = data.clone()
	title, hasTitle := data.Get(k.name)
	if !(hasTitle && !php.Empty(title)) && !hasLinkedData(k, data) {
		return 0, nil
	}
	titleStr := k.unnamed
	if hasTitle {
		titleStr = phpToString(title)
	}
	content := ""
	if c, ok := data.Get("Description"); ok {
		content = phpToString(c)
	}
	status := "publish"
	if s, ok := data.Get("post_status"); ok {
		status = phpToString(s)
	}

	var found int64
	if avoidDuplicates {
		// Taking the type's slug lock before looking makes the check race-free: a concurrent create
		// of the same name waits for this transaction and then finds its post (WordPress can insert
		// both).
		if err := tx.LockSlugs(ctx, postType); err != nil {
			return 0, err
		}
		// Tribe__Duplicate__Post with the "same" strategy on the non-empty post fields it knows:
		// the title, and the content when one was sent (custom fields never take part).
		fields := []KV{{Key: "post_title", Value: titleStr}}
		if !php.Empty(content) {
			fields = append(fields, KV{Key: "post_content", Value: content})
		}
		if !php.Empty(titleStr) {
			if found, err = tx.FindPostByFields(ctx, postType, fields); err != nil {
				return 0, err
			}
		} else if len(fields) > 1 {
			if found, err = tx.FindPostByFields(ctx, postType, fields[1:]); err != nil {
				return 0, err
			}
		}
	}
	id := found
	if found == 0 {
		a := PostArgs{Type: postType, Status: status}
		a.Title = strPtr(Unslash(titleStr))
		if !php.Empty(content) {
			a.Content = strPtr(Unslash(content))
		}
		if slug := wptext.SanitizeTitle(titleStr); slug != "" {
			a.Name = &slug
		}
		if v, ok := data.Get("post_name"); ok && !php.Empty(v) {
			a.Name = strPtr(phpToString(v)) // a migration's slug: the source's
		}
		if v, ok := data.Get("post_author"); ok && !php.Empty(v) {
			author := php.Int(v)
			a.Author = &author
		}
		if v, ok := data.Get("post_date"); ok && !php.Empty(v) {
			a.Date = strPtr(phpToString(v))
		}
		if v, ok := data.Get("post_date_gmt"); ok && !php.Empty(v) {
			a.DateGMT = strPtr(phpToString(v))
		}
		if v, ok := data.Get("import_id"); ok {
			a.ImportID = php.Int(v)
		}
		a.Modified, a.ModifiedGMT = importModified(data)
		p, err := SavePost(ctx, tx, site, user, a)
		if err != nil {
			var refused *Error
			if errors.As(err, &refused) {
				return 0, nil // wp_insert_post returned a WP_Error
			}
			return 0, err
		}
		id = p.ID
		if err := UpdatePostMeta(ctx, tx, id, k.origin, "events-calendar"); err != nil {
			return 0, err
		}
	}

	// The migration's keys are wp_insert_post arguments, never meta.
	for _, key := range importKeys {
		data.Delete(key)
	}
	if postType == PostTypeVenue {
		// The map flags default to on; any other value than a truthy one turns them off.
		for _, key := range []string{"ShowMap", "ShowMapLink"} {
			if v, ok := data.Get(key); ok && !TribeIsTruthy(v) {
				data.Delete(key)
			} else {
				data.Set(key, true)
			}
		}
	}
	if err := saveLinkedMeta(ctx, tx, k, postType, id, data); err != nil {
		return 0, err
	}
	return id, nil
}

// importKeys are the data keys a migration adds (PostArgs' ImportID, Name, Modified, ModifiedGMT
// and NoRevision).
var importKeys = []string{"import_id", "post_name", "post_modified", "post_modified_gmt", "import_no_revision"}

// importModified reads the migration's modification dates from data.
func importModified(data LinkedArray) (local, gmt *string) {
	if v, ok := data.Get("post_modified"); ok && !php.Empty(v) {
		local = strPtr(phpToString(v))
	}
	if v, ok := data.Get("post_modified_gmt"); ok && !php.Empty(v) {
		gmt = strPtr(phpToString(v))
	}
	return local, gmt
}

// hasLinkedData is has_venue_data / has_organizer_data.
func hasLinkedData(k linkedKind, data LinkedArray) bool {
	for _, key := range k.dataKeys {
		if v, ok := data.Get(key); ok && !php.Empty(v) {
			return true
		}
	}
	return false
}

// UpdateLinked is Tribe__Events__Venue::update / Tribe__Events__Organizer::update: the post fields
// that are set (non-empty) go through wp_update_post together with the status (always set by the
// endpoint), then every remaining key is saved as meta. Venue map flags not sent become on.
func UpdateLinked(ctx context.Context, tx WriteTx, site *Site, user *User, postType string, id int64, data LinkedArray) error {
	k, err := kindOf(postType)
	if err != nil {
		return err
	}
	data = data.clone()
	data.Delete(k.idKey)
	// Tribe__Data defaults missing keys to "" and array_filter() drops every empty value.
	field := func(post, alias string) *string {
		v, ok := data.Get(post)
		if !ok {
			v, _ = data.Get(alias)
		}
		if php.Empty(v) {
			return nil
		}
		s := Unslash(phpToString(v))
		return &s
	}
	a := PostArgs{ID: id, Type: postType,
		Title: field("post_title", k.name), Content: field("post_content", "Description"), Excerpt: field("post_excerpt", "Excerpt")}
	if v, ok := data.Get("post_author"); ok && !php.Empty(v) {
		author := php.Int(v)
		a.Author = &author
	}
	if v, ok := data.Get("post_date"); ok && !php.Empty(v) {
		a.Date = strPtr(phpToString(v))
	}
	if v, ok := data.Get("post_date_gmt"); ok && !php.Empty(v) {
		a.DateGMT = strPtr(phpToString(v))
	}
	if v, ok := data.Get("post_status"); ok && !php.Empty(v) {
		a.Status = phpToString(v)
	}
	a.Modified, a.ModifiedGMT = importModified(data)
	_, a.NoRevision = data.Get("import_no_revision")
	if v, ok := data.Get("post_name"); ok && !php.Empty(v) {
		a.Name = strPtr(phpToString(v))
	}
	for _, key := range importKeys {
		data.Delete(key)
	}
	if a.Title != nil || a.Content != nil || a.Excerpt != nil || a.Author != nil || a.Date != nil || a.DateGMT != nil || a.Status != "" ||
		a.Name != nil || a.Modified != nil {
		// wp_update_post without $wp_error: a refused update is ignored and the meta is still saved.
		if _, err := SavePost(ctx, tx, site, user, a); err != nil {
			var refused *Error
			if !errors.As(err, &refused) {
				return err
			}
		}
	}
	if postType == PostTypeVenue {
		for _, key := range []string{"ShowMap", "ShowMapLink"} {
			if v, ok := data.Get(key); ok && !TribeIsTruthy(v) {
				data.Set(key, "false")
			} else {
				data.Set(key, true)
			}
		}
	}
	var meta LinkedArray
	for _, kv := range data {
		if linkedPostColumns[kv.Key] || kv.Key == k.name || kv.Key == "Description" || kv.Key == "Excerpt" {
			continue
		}
		meta = append(meta, kv)
	}
	return saveLinkedMeta(ctx, tx, k, postType, id, meta)
}

// saveLinkedMeta is save_meta(): venues derive StateProvince and store the map flags (also under
// the event keys); the featured image is set or removed; every other key becomes prefixed meta,
// text-sanitized.
func saveLinkedMeta(ctx context.Context, tx WriteTx, k linkedKind, postType string, id int64, data LinkedArray) error {
	data = data.clone()
	if postType == PostTypeVenue {
		if sp, ok := data.Get("StateProvince"); !ok || looseEqualsEmpty(sp) {
			state, hasState := data.Get("State")
			country, _ := data.Get("Country")
			cs, _ := country.(string)
			province, hasProvince := data.Get("Province")
			switch {
			case hasState && !looseEqualsEmpty(state) && (php.Empty(country) || cs == "US" || cs == "United States"):
				data.Set("StateProvince", state)
			case hasProvince && !looseEqualsEmpty(province):
				data.Set("StateProvince", province)
			default:
				data.Set("StateProvince", "")
			}
		}
		flag := func(key string) string {
			if v, ok := data.Get(key); ok && TribeIsTruthy(v) {
				return "1"
			}
			return ""
		}
		showLink, show := flag("ShowMapLink"), flag("ShowMap")
		for _, m := range []KV{{Key: "_EventShowMapLink", Value: showLink}, {Key: "_EventShowMap", Value: show},
			{Key: "_VenueShowMapLink", Value: showLink}, {Key: "_VenueShowMap", Value: show}} {
			if err := UpdatePostMeta(ctx, tx, id, m.Key, m.Value.(string)); err != nil {
				return err
			}
		}
		data.Delete("ShowMapLink")
		data.Delete("ShowMap")
	}
	if img, set := data.Get("FeaturedImage"); set {
		if php.Empty(img) {
			if err := tx.DeleteMeta(ctx, id, "_thumbnail_id", nil); err != nil {
				return err
			}
		} else if err := UpdatePostMeta(ctx, tx, id, "_thumbnail_id", Unslash(phpToString(img))); err != nil {
			return err
		}
		data.Delete("FeaturedImage")
	}
	data.Delete(k.name)
	for _, kv := range data {
		if kv.Value == nil || contains(k.skipInMeta, kv.Key) {
			continue
		}
		if err := UpdatePostMeta(ctx, tx, id, k.prefix+kv.Key, Unslash(sanitizeTextValue(kv.Value))); err != nil {
			return err
		}
	}
	return nil
}

// LinkedEventsQuery selects the events a trashed venue or organizer is taken off: the events
// tribe_get_events() returns for it by default, i.e. published ones (and private ones the user may
// read) that have not ended yet, in list order, at most Limit of them. Events hidden from listings
// count too.
type LinkedEventsQuery struct {
	Site     *Site
	MetaKey  string // _EventVenueID or _EventOrganizerID
	LinkedID int64
	// Private includes every private event; PrivateAuthor (when Private is false) only those of that
	// author (WP_Query for users without read_private_posts).
	Private       bool
	PrivateAuthor int64
	// EndsOnOrAfter is "now" as a DB datetime in the zone of the compared end dates (site-local, or
	// UTC in the site timezone mode).
	EndsOnOrAfter string
	Limit         int
}

// TrashLinked is the plugin's DELETE of a venue or organizer: wp_trash_post, then the plugin takes
// the trashed post off the events that use it. Quirks kept: only the first posts_per_page upcoming
// events are processed, and every row of the meta key is deleted from them (for organizers that
// removes the event's other organizers too).
func TrashLinked(ctx context.Context, tx WriteTx, site *Site, user *User, p *Post) (*Post, error) {
	trashed, err := TrashPost(ctx, tx, site, user, p)
	if err != nil {
		return nil, err
	}
	// The plugin's WP_Query (filter_and_order_by_date) compares with Dates::immutable('now'): the
	// site zone of build_timezone_object, PHP's region on an offset-only site.
	now := tx.Now().In(BuildTimezoneObject("", false, site))
	if site.TimezoneModeSite {
		now = tx.Now().UTC()
	}
	q := LinkedEventsQuery{Site: site, MetaKey: LinkedMetaKey(p.Type), LinkedID: p.ID,
		Private: user.Can(CapsOf(PostTypeEvent).ReadPrivate), EndsOnOrAfter: now.Format(DBDateTime), Limit: site.PerPage}
	if !q.Private && user.LoggedIn() {
		q.PrivateAuthor = user.ID
	}
	ids, err := tx.LinkedEventIDs(ctx, q)
	if err != nil {
		return nil, err
	}
	for _, ev := range ids {
		if err := tx.DeleteMeta(ctx, ev, q.MetaKey, nil); err != nil {
			return nil, err
		}
	}
	return trashed, nil
}

// ScaleBackStatus is the endpoints' scale_back_post_status(): callers who cannot publish events
// (venue and organizer writes check the event capability too) get "pending" for publish/future and
// "draft" by default; others get "publish" by default.
func ScaleBackStatus(user *User, status string) string {
	if user.Can(CapsOf(PostTypeEvent).Publish) {
		if status != "" {
			return status
		}
		return "publish"
	}
	if status == "publish" || status == "future" {
		return "pending"
	}
	if status != "" {
		return status
	}
	return "draft"
}

// TribeIsTruthy is tribe_is_truthy(): booleans as they are, the words "1", "yes", "true", "on", "y",
// "enable", "enabled" (any case), other values by PHP's boolean cast.
func TribeIsTruthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return IsTruthyWord(x)
	}
	return !php.Empty(v)
}

// looseEqualsEmpty is PHP 8's loose comparison of a value with the empty string.
func looseEqualsEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == ""
	}
	return false
}

// phpToString is PHP's (string) cast; arrays become "Array".
func phpToString(v any) string {
	if s, ok := php.String(v); ok {
		return s
	}
	return "Array"
}

// sanitizeTextValue is sanitize_text_field() on any value: arrays and objects become "".
func sanitizeTextValue(v any) string {
	s, ok := php.String(v)
	if !ok {
		return ""
	}
	return wptext.SanitizeTextField(s)
}

func strPtr(s string) *string { return &s }
