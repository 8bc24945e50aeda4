package calendard

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/internal/cost"
)

// CorePostWrite is one create or update through WordPress core's REST posts controller (wp/v2) for
// the calendar's post types, after prepare_item_for_database and with every parameter validated:
// a request that reaches SaveCorePost writes all of it or (on a storage failure) nothing.
type CorePostWrite struct {
	ID   int64 // 0 creates
	Type string
	// Status is the handled status ("" keeps the stored one, or drafts a new post).
	Status string
	Author *int64

	Title, Content, Excerpt, Password *string
	// Slug is the sanitized slug sent (sanitize_title), nil when not sent.
	Slug *string
	// Date and DateGMT are rest_get_date_with_gmt's pair when a new date was sent.
	Date, DateGMT *string

	// FeaturedMedia is the featured_media sent (0 removes the thumbnail).
	FeaturedMedia *int64
	// Terms are the taxonomies sent, each the full new list of term IDs.
	Terms []CoreTerms
	// Meta are the registered meta keys sent, in registration order.
	Meta []CoreMeta
	// MetaErr is the error WordPress answers for a meta value its schema refuses. WordPress finds it
	// after writing the post and its terms and answers it then (a half-write); SaveCorePost returns
	// it at the same point, so the error is the same and the caller's transaction writes nothing.
	MetaErr error
	// JSONMeta is the meta object of a JSON body as the plugin's rest_after_insert hooks read it
	// (get_json_params): nil for a form body.
	JSONMeta *CoreJSONMeta
}

// CoreTerms is one taxonomy of a wp/v2 write (handle_terms: wp_set_object_terms with term IDs).
type CoreTerms struct {
	Taxonomy string
	IDs      []int64
}

// CoreMeta is one registered meta key of a wp/v2 write (WP_REST_Meta_Fields::update_value), already
// validated against its schema and sanitized to the form update_metadata stores.
type CoreMeta struct {
	Key   string
	Multi bool // registered with single => false
	// Delete resets the key (a null value, or an empty list for a multi key).
	Delete bool
	Values []string // one value for single keys
}

// CoreJSONMeta is what the plugin's rest_after_insert_tribe_events hooks read from the JSON body's
// meta object: each key set (PHP isset) or nil.
type CoreJSONMeta struct {
	Start, End, Timezone, Cost *string
}

// tecTrackedMeta are the meta keys whose changes make the plugin rebuild an event's custom-table
// rows at the end of a REST request (Custom_Tables\V1\Updates\Meta_Watcher).
var tecTrackedMeta = map[string]bool{
	metaStart: true, metaStartUTC: true, metaEnd: true, metaEndUTC: true, metaDuration: true,
	metaTimezone: true, metaAllDay: true,
}

// coreSave carries what one wp/v2 write has done so far: whether the plugin's meta watcher has
// marked the event.
type coreSave struct {
	ctx    context.Context
	tx     WriteTx
	postID int64
	marked bool
}

func (s *coreSave) touched(key string) {
	if tecTrackedMeta[key] {
		s.marked = true
	}
}

// SaveCorePost is WP_REST_Posts_Controller::create_item / update_item for the calendar's post types
// from wp_insert_post on: the post row (SavePost, with the plugin's save_post work: linked drafts
// published with an event, the origin marker), the featured image, the terms, the registered meta,
// then the plugin's rest_after_insert hooks for events (UTC dates and the cost re-saved on updates,
// and the custom tables when date meta changed). It returns the saved post.
func SaveCorePost(ctx context.Context, tx WriteTx, site *Site, user *User, w *CorePostWrite) (*Post, error) {
	create := w.ID == 0
	args := PostArgs{ID: w.ID, Type: w.Type, Status: w.Status, Author: w.Author, Title: w.Title, Content: w.Content,
		Excerpt: w.Excerpt, Name: w.Slug, Password: w.Password, Date: w.Date, DateGMT: w.DateGMT}
	if w.Type == PostTypeEvent {
		args.OnSaved = func(p *Post) error { return publishLinkedPosts(ctx, tx, site, user, p) }
	}
	// wp_unique_post_slug keeps the slug of drafts and pending posts as it is: the controller makes
	// a sent slug unique as if the post were published.
	status := w.Status
	if status == "" && !create {
		before, err := tx.LockPost(ctx, w.ID)
		if err != nil {
			return nil, err
		}
		if before == nil {
			return nil, fmt.Errorf("post %d vanished", w.ID)
		}
		status = before.Status
	}
	if status == "" {
		status = "draft"
	}
	if w.Slug != nil && *w.Slug != "" && (status == "draft" || status == "pending") {
		if err := tx.LockSlugs(ctx, w.Type); err != nil {
			return nil, err
		}
		unique, err := uniquePostSlug(ctx, tx, *w.Slug, w.ID, w.Type)
		if err != nil {
			return nil, err
		}
		args.Name = &unique
	}
	p, err := SavePost(ctx, tx, site, user, args)
	if err != nil {
		return nil, err
	}
	if create {
		// The plugin's addPostOrigin (wp_insert_post hook).
		if err := addPostOrigin(ctx, tx, p); err != nil {
			return nil, err
		}
	}
	s := &coreSave{ctx: ctx, tx: tx, postID: p.ID}
	if w.FeaturedMedia != nil {
		if err := s.featuredMedia(*w.FeaturedMedia); err != nil {
			return nil, err
		}
	}
	for _, t := range w.Terms {
		if err := s.setTerms(t); err != nil {
			return nil, err
		}
	}
	if w.MetaErr != nil {
		return nil, w.MetaErr
	}
	for _, m := range w.Meta {
		if err := s.meta(m); err != nil {
			return nil, err
		}
	}
	if w.Type == PostTypeEvent {
		// The hooks read the request's "id", which only an update has.
		if !create {
			if err := s.utcDates(site, w.JSONMeta); err != nil {
				return nil, err
			}
			if err := s.resaveCost(w.JSONMeta); err != nil {
				return nil, err
			}
		}
		if s.marked {
			if err := commitEventTables(ctx, tx, site, p.ID); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// featuredMedia is handle_featured_media: set_post_thumbnail for an image attachment (an existing
// post that is not one removes the thumbnail, a missing one changes nothing), delete_post_thumbnail
// for 0.
func (s *coreSave) featuredMedia(id int64) error {
	if id == 0 {
		return s.deleteMeta(metaThumbnail, nil)
	}
	media, err := s.tx.LockPost(s.ctx, id)
	if err != nil || media == nil {
		return err
	}
	if media.Type != PostTypeAttach || !strings.HasPrefix(media.MimeType, "image/") {
		return s.deleteMeta(metaThumbnail, nil)
	}
	return s.updateMeta(metaThumbnail, strconv.FormatInt(id, 10))
}

// setTerms is wp_set_object_terms with term IDs: IDs that name no term of the taxonomy are skipped.
func (s *coreSave) setTerms(t CoreTerms) error {
	var terms []*Term
	for _, id := range t.IDs {
		term, err := s.tx.TermByID(s.ctx, id, t.Taxonomy)
		if err != nil {
			return err
		}
		if term != nil {
			terms = append(terms, term)
		}
	}
	return SetObjectTerms(s.ctx, s.tx, s.postID, t.Taxonomy, terms)
}

// meta is one key of WP_REST_Meta_Fields::update_value.
func (s *coreSave) meta(m CoreMeta) error {
	if m.Delete {
		// delete_meta_value: nothing stored is nothing to delete.
		return s.deleteMeta(m.Key, nil)
	}
	if !m.Multi {
		// update_meta_value: a single stored row equal to the value is left alone.
		return s.updateMeta(m.Key, m.Values[0])
	}
	// update_multi_meta_value: values already stored once stay; other stored values go, new ones
	// are added.
	current, err := s.tx.MetaValues(s.ctx, s.postID, m.Key)
	if err != nil {
		return err
	}
	removed := make([]bool, len(current))
	var toAdd []string
	for _, v := range m.Values {
		var hits []int
		for i, c := range current {
			if c == v {
				hits = append(hits, i)
			}
		}
		switch len(hits) {
		case 0:
			toAdd = append(toAdd, v)
		case 1:
			removed[hits[0]] = true
		default:
			// Several stored copies: they are all removed, then the value is added once.
			toAdd = append(toAdd, v)
		}
	}
	var toRemove []string
	for i, c := range current {
		if !removed[i] {
			toRemove = append(toRemove, c)
		}
	}
	seen := map[string]bool{}
	for _, v := range toRemove {
		if seen[v] {
			continue
		}
		seen[v] = true
		v := v
		if err := s.deleteMeta(m.Key, &v); err != nil {
			return err
		}
	}
	for _, v := range toAdd {
		if err := s.tx.AddMeta(s.ctx, s.postID, m.Key, v); err != nil {
			return err
		}
		s.touched(m.Key)
	}
	return nil
}

// updateMeta is update_post_meta: one stored row equal to the value changes nothing; otherwise
// every row is updated, or one added.
func (s *coreSave) updateMeta(key, value string) error {
	current, err := s.tx.MetaValues(s.ctx, s.postID, key)
	if err != nil {
		return err
	}
	if len(current) == 1 && current[0] == value {
		return nil
	}
	s.touched(key)
	return UpdatePostMeta(s.ctx, s.tx, s.postID, key, value)
}

// deleteMeta is delete_post_meta (every row of the key, or those holding value).
func (s *coreSave) deleteMeta(key string, value *string) error {
	current, err := s.tx.MetaValues(s.ctx, s.postID, key)
	if err != nil {
		return err
	}
	found := false
	for _, c := range current {
		found = found || value == nil || c == *value
	}
	if !found {
		return nil
	}
	s.touched(key)
	return s.tx.DeleteMeta(s.ctx, s.postID, key, value)
}

// utcDates is the plugin's add_utc_dates (rest_after_insert_tribe_events): when the JSON meta sets
// a start or end date, both UTC dates are recomputed from the dates and zone (sent, else stored).
func (s *coreSave) utcDates(site *Site, jm *CoreJSONMeta) error {
	if jm == nil || (jm.Start == nil && jm.End == nil) {
		return nil
	}
	zone, err := firstMeta(s.ctx, s.tx, s.postID, metaTimezone)
	if err != nil {
		return err
	}
	if zone == "" {
		zone = site.TimezoneString
	}
	if jm.Timezone != nil {
		zone = *jm.Timezone
	}
	// Tribe__Timezones::build_timezone_object falls back to UTC.
	loc, err := EventZone(zone)
	if err != nil || loc == nil {
		loc = time.UTC
	}
	pick := func(key string, sent *string) (string, error) {
		if sent != nil {
			return *sent, nil
		}
		return firstMeta(s.ctx, s.tx, s.postID, key)
	}
	for _, d := range []struct {
		key, utcKey string
		sent        *string
	}{{metaStart, metaStartUTC, jm.Start}, {metaEnd, metaEndUTC, jm.End}} {
		local, err := pick(d.key, d.sent)
		if err != nil {
			return err
		}
		// Tribe__Date_Utils::build_date_object falls back to now for what it cannot parse.
		t, err := time.ParseInLocation(DBDateTime, local, loc)
		if err != nil {
			t = s.tx.Now()
		}
		if err := s.updateMeta(d.utcKey, t.UTC().Format(DBDateTime)); err != nil {
			return err
		}
	}
	return nil
}

// resaveCost is the plugin's update_cost (rest_after_insert_tribe_events): the cost rows are
// deleted and written again, from the JSON meta's _EventCost when set, else as tribe_get_cost
// formats the stored rows.
func (s *coreSave) resaveCost(jm *CoreJSONMeta) error {
	var value string
	if jm != nil && jm.Cost != nil {
		value = *jm.Cost
	} else {
		rows, err := s.tx.MetaValues(s.ctx, s.postID, metaCost)
		if err != nil {
			return err
		}
		value = cost.Plain(rows)
	}
	if err := s.deleteMeta(metaCost, nil); err != nil {
		return err
	}
	return s.tx.AddMeta(s.ctx, s.postID, metaCost, value)
}

// OptionWriteTx is the storage a wp/v2 settings update needs (part of WriteTx).
type OptionWriteTx interface {
	// Option returns an option's raw value and whether it exists.
	Option(ctx context.Context, name string) (string, bool, error)
	// UpdateOption stores an option's value (adding the row when there is none).
	UpdateOption(ctx context.Context, name, value string) error
	DeleteOption(ctx context.Context, name string) error
}

// PublishPost is wp_publish_post: only the status changes (dates, slug and GUID stay as stored),
// then what its hooks do: the term counts of the status transition, the plugin's origin marker
// (wp_insert_post) and the revision (wp_after_insert_post). p is updated in place.
func PublishPost(ctx context.Context, tx WriteTx, site *Site, user *User, p *Post) error {
	if p.Status == "publish" {
		return nil
	}
	p.Status = "publish"
	if err := tx.UpdatePost(ctx, p); err != nil {
		return err
	}
	if err := RecountObjectTerms(ctx, tx, p.ID, p.Type); err != nil {
		return err
	}
	if err := addPostOrigin(ctx, tx, p); err != nil {
		return err
	}
	return SaveRevision(ctx, tx, site, user, p)
}
