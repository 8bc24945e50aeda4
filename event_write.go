package calendard

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/internal/cost"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/strtotime"
	"github.com/calendard/calendard/internal/wptext"
)

// EventWrite is one event create or update as the plugin's REST endpoint hands it to
// Tribe__Events__API (Single_Event::prepare_postarr): parameters already validated and parsed.
type EventWrite struct {
	ID int64 // 0 creates

	Title, Content, Excerpt, Slug *string // nil: not sent
	Author                        *int64
	Status                        string  // after the scale-back; never empty
	Date, DateGMT                 *string // publication date (DB datetimes); nil: not sent

	// Timezone is the event zone as sent; "" uses the site's.
	Timezone string
	AllDay   bool
	// Start and End are the wall-clock dates ("Y-m-d H:i:s"); both "" unless both were sent.
	Start, End string

	ImageID int64        // 0: none (create) or remove (update)
	Cost    *cost.Stored // nil: not sent
	Website string       // URL-sanitized; "" when not sent or empty

	ShowMap, ShowMapLink, HideFromUpcoming, Sticky, Featured bool

	Categories, Tags *[]TermInput // nil: not sent (terms unchanged)
	VenueID          int64        // 0: none (create) or unchanged (update)
	OrganizerIDs     []int64      // the event's organizers, in order (an update replaces them)

	// ImportID, Modified and ModifiedGMT are PostArgs' (a migration keeps the source's ID and
	// modification dates).
	ImportID              int64
	Modified, ModifiedGMT *string
	// Password is post_password (nil: unchanged); the plugin's routes never set it, a migration does.
	Password *string
	// Parent is post_parent (nil: unchanged); the plugin's routes never set it, a migration does.
	Parent *int64
	// NoRevision is PostArgs' (a migration writes no revisions).
	NoRevision bool
}

// Event meta keys the write path stores.
const (
	metaOrigin        = "_EventOrigin"
	metaShowMap       = "_EventShowMap"
	metaShowMapLink   = "_EventShowMapLink"
	metaVenueID       = "_EventVenueID"
	metaOrganizerID   = "_EventOrganizerID"
	metaThumbnail     = "_thumbnail_id"
	metaAllDay        = "_EventAllDay"
	metaStart         = "_EventStartDate"
	metaEnd           = "_EventEndDate"
	metaStartUTC      = "_EventStartDateUTC"
	metaEndUTC        = "_EventEndDateUTC"
	metaDuration      = "_EventDuration"
	metaTimezone      = "_EventTimezone"
	metaTimezoneAbbr  = "_EventTimezoneAbbr"
	metaCost          = "_EventCost"
	metaCurrencySym   = "_EventCurrencySymbol"
	metaCurrencyPos   = "_EventCurrencyPosition"
	metaURL           = "_EventURL"
	metaFeatured      = "_tribe_featured"
	metaHide          = "_EventHideFromUpcoming"
	metaPrevStatus    = "_tribe_ignored_event_previous_status"
	eventOriginPlugin = "events-calendar"
)

// SaveEvent creates or updates an event the way Tribe__Events__API::createEvent/updateEvent do:
// the post (with its terms and the publishing of linked drafts), the event meta, then the plugin's
// custom tables. It returns the event's post ID.
func SaveEvent(ctx context.Context, tx WriteTx, site *Site, user *User, w *EventWrite) (int64, error) {
	create := w.ID == 0
	args := PostArgs{
		ID: w.ID, Type: PostTypeEvent, Status: w.Status, Author: w.Author,
		Title: w.Title, Content: w.Content, Excerpt: w.Excerpt, Name: w.Slug,
		Date: w.Date, DateGMT: w.DateGMT,
		// The plugin passes false dates on update, which WordPress reads as "now".
		ResetDate: !create && w.Date == nil && w.DateGMT == nil,
		ImportID:  w.ImportID, Modified: w.Modified, ModifiedGMT: w.ModifiedGMT,
		Password: w.Password, Parent: w.Parent, NoRevision: w.NoRevision,
	}
	var before *Post
	if !create {
		var err error
		if before, err = tx.LockPost(ctx, w.ID); err != nil {
			return 0, err
		}
		if before == nil {
			return 0, fmt.Errorf("event %d vanished", w.ID)
		}
	}
	args.OnSaved = func(p *Post) error {
		if err := setEventTerms(ctx, tx, p.ID, w); err != nil {
			return err
		}
		return publishLinkedPosts(ctx, tx, site, user, p)
	}
	p, err := SavePost(ctx, tx, site, user, args)
	if err != nil {
		return 0, err
	}
	if err := saveEventMeta(ctx, tx, site, p, w, create); err != nil {
		return 0, err
	}
	// The plugin stores stickiness with a second wp_update_post when it changes (on create that save
	// takes the first revision, and publishes linked drafts now that the links are stored).
	wasSticky := before != nil && before.MenuOrder == -1
	if w.Sticky != wasSticky {
		order := int64(0)
		if w.Sticky {
			order = -1
		}
		if _, err := SavePost(ctx, tx, site, user, PostArgs{ID: p.ID, Type: PostTypeEvent, MenuOrder: &order,
			Modified: w.Modified, ModifiedGMT: w.ModifiedGMT, NoRevision: w.NoRevision,
			OnSaved: func(p *Post) error { return publishLinkedPosts(ctx, tx, site, user, p) }}); err != nil {
			return 0, err
		}
	}
	if err := commitEventTables(ctx, tx, site, p.ID); err != nil {
		return 0, err
	}
	return p.ID, nil
}

// setEventTerms is the tax_input part of wp_insert_post for the event's categories and tags.
func setEventTerms(ctx context.Context, tx WriteTx, postID int64, w *EventWrite) error {
	for _, tt := range []struct {
		items        *[]TermInput
		taxonomy     string
		hierarchical bool
	}{{w.Categories, TaxonomyCategory, true}, {w.Tags, TaxonomyTag, false}} {
		if tt.items == nil {
			continue
		}
		// Names may create terms: serialize with other term writers.
		if err := LockTermWrites(ctx, tx); err != nil {
			return err
		}
		refs, err := translateTermsToIDs(ctx, tx, *tt.items, tt.taxonomy, tt.hierarchical)
		if err != nil {
			return err
		}
		if err := setPostTerms(ctx, tx, postID, refs, tt.taxonomy, tt.hierarchical); err != nil {
			return err
		}
	}
	return nil
}

// publishLinkedPosts is Tribe__Events__Main::publishAssociatedTypes (save_post): when a logged-in
// user saves a published event, the venue and organizers it links to (as stored before this
// request's meta is saved) that are neither published nor private are published with
// wp_publish_post, if the user may publish them, and one left without a slug gets one.
func publishLinkedPosts(ctx context.Context, tx WriteTx, site *Site, user *User, event *Post) error {
	if event.Status != "publish" || !user.LoggedIn() {
		return nil
	}
	for _, link := range []struct{ key, postType, prefix string }{
		{metaVenueID, PostTypeVenue, "venue"}, {metaOrganizerID, PostTypeOrganizer, "organizer"},
	} {
		vals, err := tx.MetaValues(ctx, event.ID, link.key)
		if err != nil {
			return err
		}
		for _, v := range vals {
			id, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if id <= 0 {
				continue
			}
			linked, err := tx.LockPost(ctx, id)
			if err != nil {
				return err
			}
			if linked == nil || linked.Type != link.postType || linked.Status == "publish" || linked.Status == "private" {
				continue
			}
			// user_can_publish_linked_post_for_user: publish_post on a post not yet published.
			if !user.Can(CapsOf(linked.Type).Publish) {
				continue
			}
			if err := PublishPost(ctx, tx, site, user, linked); err != nil {
				return err
			}
			if linked.Name != "" {
				continue
			}
			title := linked.Title
			if title == "" {
				title = link.prefix + "-" + strconv.FormatInt(id, 10)
			}
			if err := tx.LockSlugs(ctx, linked.Type); err != nil {
				return err
			}
			slug, err := uniquePostSlug(ctx, tx, wptext.SanitizeTitle(title), id, linked.Type)
			if err != nil {
				return err
			}
			if _, err := SavePost(ctx, tx, site, user, PostArgs{ID: id, Type: linked.Type, Name: &slug}); err != nil {
				return err
			}
		}
	}
	return nil
}

// boolMeta is how the plugin stores a PHP boolean.
func boolMeta(b bool) string {
	if b {
		return "1"
	}
	return ""
}

// replaceMeta deletes every row of key and adds one row per value.
func replaceMeta(ctx context.Context, tx WriteTx, postID int64, key string, values ...string) error {
	if err := tx.DeleteMeta(ctx, postID, key, nil); err != nil {
		return err
	}
	for _, v := range values {
		if err := tx.AddMeta(ctx, postID, key, v); err != nil {
			return err
		}
	}
	return nil
}

// relink is Linked_Posts::handle_submission for one kind: the event's links of key become ids, in
// order; an unchanged list is left alone.
func relink(ctx context.Context, tx WriteTx, id int64, key string, ids []int64) error {
	prior, err := tx.MetaValues(ctx, id, key)
	if err != nil {
		return err
	}
	vals := make([]string, len(ids))
	for i, o := range ids {
		vals[i] = strconv.FormatInt(o, 10)
	}
	if len(prior) == len(vals) {
		same := true
		for i := range vals {
			same = same && prior[i] == vals[i]
		}
		if same {
			return nil
		}
	}
	return replaceMeta(ctx, tx, id, key, vals...)
}

// saveEventMeta is Tribe__Events__API::saveEventMeta. A create only stores what is set (the plugin
// array_filter()s its arguments); an update writes every field, so omitted ones are cleared.
func saveEventMeta(ctx context.Context, tx WriteTx, site *Site, p *Post, w *EventWrite, create bool) error {
	id := p.ID
	up := func(key, value string) error { return UpdatePostMeta(ctx, tx, id, key, value) }
	del := func(key string) error { return tx.DeleteMeta(ctx, id, key, nil) }

	if create {
		if err := tx.AddMeta(ctx, id, metaOrigin, eventOriginPlugin); err != nil {
			return err
		}
	}
	if err := up(metaShowMapLink, boolMeta(w.ShowMapLink)); err != nil {
		return err
	}
	if err := up(metaShowMap, boolMeta(w.ShowMap)); err != nil {
		return err
	}
	if w.VenueID > 0 {
		if err := relink(ctx, tx, id, metaVenueID, []int64{w.VenueID}); err != nil {
			return err
		}
	}
	if err := relink(ctx, tx, id, metaOrganizerID, w.OrganizerIDs); err != nil {
		return err
	}
	if w.ImageID > 0 {
		if err := up(metaThumbnail, strconv.FormatInt(w.ImageID, 10)); err != nil {
			return err
		}
	} else if !create {
		if err := del(metaThumbnail); err != nil {
			return err
		}
	}
	if err := saveEventDates(ctx, tx, site, p, w, create); err != nil {
		return err
	}
	if err := saveEventCost(ctx, tx, id, w.Cost, create); err != nil {
		return err
	}
	if !create || w.Website != "" {
		if err := up(metaURL, wptext.SanitizeTextField(w.Website)); err != nil {
			return err
		}
	}
	flags := []struct {
		on         bool
		key, value string
	}{{w.Featured, metaFeatured, "1"}, {w.HideFromUpcoming, metaHide, "yes"}}
	for _, f := range flags {
		switch {
		case f.on:
			if err := up(f.key, f.value); err != nil {
				return err
			}
		case !create:
			if err := del(f.key); err != nil {
				return err
			}
		}
	}
	return nil
}

// saveEventCost stores the cost rows and the currency symbol and position (spec §7.7). The plugin
// registers these keys with sanitize_text_field.
func saveEventCost(ctx context.Context, tx WriteTx, id int64, st *cost.Stored, create bool) error {
	up := func(key, value string) error {
		return UpdatePostMeta(ctx, tx, id, key, wptext.SanitizeTextField(value))
	}
	if st != nil {
		cp := *st
		cp.Rows = make([]string, len(st.Rows))
		for i, r := range st.Rows {
			cp.Rows[i] = wptext.SanitizeTextField(r)
		}
		cp.Symbol, cp.Position = wptext.SanitizeTextField(st.Symbol), wptext.SanitizeTextField(st.Position)
		st = &cp
	}
	if create {
		if st == nil || st.SkipOnCreate {
			return nil
		}
		if st.SymbolSet {
			if err := tx.AddMeta(ctx, id, metaCurrencySym, st.Symbol); err != nil {
				return err
			}
		}
		if st.PositionSet {
			if err := tx.AddMeta(ctx, id, metaCurrencyPos, st.Position); err != nil {
				return err
			}
		}
		for _, r := range st.Rows {
			if err := tx.AddMeta(ctx, id, metaCost, r); err != nil {
				return err
			}
		}
		return nil
	}
	if st == nil {
		if err := tx.DeleteMeta(ctx, id, metaCost, nil); err != nil {
			return err
		}
		if err := up(metaCurrencySym, ""); err != nil {
			return err
		}
		return up(metaCurrencyPos, "")
	}
	if err := up(metaCurrencySym, st.Symbol); err != nil {
		return err
	}
	if err := up(metaCurrencyPos, st.Position); err != nil {
		return err
	}
	if st.Single {
		return up(metaCost, st.Rows[0])
	}
	return replaceMeta(ctx, tx, id, metaCost, st.Rows...)
}

// saveEventDates stores the dates, all-day flag, zone and abbreviation (spec §7.3): dates are
// rewritten only when both were sent (or for all-day events, which re-round the stored ones).
func saveEventDates(ctx context.Context, tx WriteTx, site *Site, p *Post, w *EventWrite, create bool) error {
	id := p.ID
	up := func(key, value string) error { return UpdatePostMeta(ctx, tx, id, key, value) }
	zoneName := w.Timezone
	if zoneName == "" {
		zoneName = site.TimezoneString
	}
	loc, err := EventZone(zoneName)
	if err != nil {
		return &Error{Code: "rest_invalid_param", Message: "Invalid parameter(s): timezone", Status: 400}
	}
	if isUTCOffsetName(zoneName) {
		// Tribe__Events__API::prepare_event_date_meta converts an offset-named event's dates with
		// Tribe__Date_Utils::immutable($date, $zone): the region PHP picks for the offset, whose
		// daylight saving time applies ("UTC-8" in July is seven hours behind UTC).
		loc = BuildTimezoneObject(zoneName, true, site)
	}

	start, end := w.Start, w.End
	if w.AllDay && (start == "" || end == "") {
		start, end = p.Meta.Value(metaStart), p.Meta.Value(metaEnd)
		if !create {
			if start, err = firstMeta(ctx, tx, id, metaStart); err != nil {
				return err
			}
			if end, err = firstMeta(ctx, tx, id, metaEnd); err != nil {
				return err
			}
		}
	}
	if start != "" && end != "" {
		if w.AllDay {
			cut := site.CutoffOffset()
			start = shiftDay(start, "00:00:00", cut)
			end = shiftDay(end, "23:59:59", cut)
		}
		startUTC, err1 := toUTC(start, loc)
		endUTC, err2 := toUTC(end, loc)
		if err1 != nil || err2 != nil {
			return &Error{Code: "rest_invalid_param", Message: "Invalid parameter(s): start_date", Status: 400}
		}
		duration := int64(0)
		if end < start {
			// The plugin clamps the end to the start but keeps the UTC end it computed before.
			end = start
		} else {
			duration = int64(mustParseUTC(endUTC).Sub(mustParseUTC(startUTC)) / time.Second)
		}
		for _, kv := range [][2]string{{metaStart, start}, {metaEnd, end}, {metaStartUTC, startUTC}, {metaEndUTC, endUTC}} {
			if err := up(kv[0], kv[1]); err != nil {
				return err
			}
		}
		if !w.AllDay {
			if err := up(metaDuration, strconv.FormatInt(duration, 10)); err != nil {
				return err
			}
		}
	}
	switch {
	case w.AllDay:
		if err := up(metaAllDay, "1"); err != nil {
			return err
		}
	case !create:
		// update_post_meta(false) after delete_post_meta: an empty row.
		if err := replaceMeta(ctx, tx, id, metaAllDay, ""); err != nil {
			return err
		}
	}
	if err := up(metaTimezone, wptext.SanitizeTextField(zoneName)); err != nil {
		return err
	}
	abbrAt := start
	if abbrAt == "" {
		if abbrAt, err = firstMeta(ctx, tx, id, metaStart); err != nil {
			return err
		}
	}
	return up(metaTimezoneAbbr, ZoneAbbr(zoneName, loc, abbrAt))
}

func firstMeta(ctx context.Context, tx WriteTx, id int64, key string) (string, error) {
	vs, err := tx.MetaValues(ctx, id, key)
	if err != nil || len(vs) == 0 {
		return "", err
	}
	return vs[0], nil
}

// shiftDay keeps the date of a "Y-m-d H:i:s" value, sets the clock and adds the multi-day cutoff.
func shiftDay(v, clock string, cut time.Duration) string {
	day := v
	if len(day) > 10 {
		day = day[:10]
	}
	t, err := time.Parse(DBDateTime, day+" "+clock)
	if err != nil {
		return v
	}
	return t.Add(cut).Format(DBDateTime)
}

func mustParseUTC(v string) time.Time {
	t, _ := time.Parse(DBDateTime, v)
	return t
}

// isOffsetZone reports TEC's "UTC+5:30"-style zones, which are converted arithmetically.
func isOffsetZone(name string) bool {
	return len(name) > 3 && strings.HasPrefix(name, "UTC") && (name[3] == '+' || name[3] == '-')
}

// EventZone resolves an event timezone as PHP would: TEC's offset zones, zone identifiers, "UTC",
// and what DateTimeZone accepts besides (abbreviations such as "EST", offsets such as "+02:00").
func EventZone(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	if loc, err := LoadZone(name); err == nil {
		return loc, nil
	}
	if isOffsetZone(name) || (strings.HasPrefix(name, "UTC") && len(name) > 3) {
		// Tribe__Timezones::apply_offset reads whatever follows "UTC" as a number of hours.
		off := name[3:]
		for suffix, frac := range map[string]string{":15": ".25", ":30": ".5", ":45": ".75"} {
			if strings.HasSuffix(off, suffix) {
				off = strings.TrimSuffix(off, suffix) + frac
			}
		}
		return time.FixedZone(name, int(php.Float(off)*60)*60), nil
	}
	return strtotime.ParseTimezone(name)
}

// toUTC is Tribe__Timezones::to_utc for a DB datetime in the event zone.
func toUTC(local string, loc *time.Location) (string, error) {
	t, err := time.ParseInLocation(DBDateTime, local, loc)
	if err != nil {
		return "", err
	}
	return t.UTC().Format(DBDateTime), nil
}

// ZoneAbbr is Tribe__Timezones::abbr: offset zones are their own abbreviation; other zones give the
// abbreviation in force at the given local time.
func ZoneAbbr(name string, loc *time.Location, at string) string {
	if isOffsetZone(name) {
		return name
	}
	t, err := time.ParseInLocation(DBDateTime, at, loc)
	if err != nil {
		t = time.Now().In(loc)
	}
	abbr := t.Format("MST")
	if strings.HasPrefix(abbr, "+") || strings.HasPrefix(abbr, "-") {
		// PHP's numeric abbreviations ("-03") are replaced by the first one PHP lists for the zone.
		if a, ok := zoneFirstAbbr[loc.String()]; ok {
			return a
		}
	}
	return abbr
}

// commitEventTables is the plugin's custom-tables commit after an event write: the tec_events row is
// rebuilt from the meta and upserted, and the event's single occurrence saved — unless the stored
// meta do not describe a valid event (e.g. an end before the start), in which case nothing is written.
// A site the plugin keeps on postmeta (Site.UseCustomTables false: its Updates provider is not
// registered) gets no rows at all.
func commitEventTables(ctx context.Context, tx WriteTx, site *Site, postID int64) error {
	if !site.UseCustomTables || !tx.HasCustomTables(ctx) {
		return nil
	}
	get := func(key string) (string, error) { return firstMeta(ctx, tx, postID, key) }
	var v [6]string
	for i, k := range []string{metaStart, metaEnd, metaTimezone, metaDuration, metaStartUTC, metaEndUTC} {
		var err error
		if v[i], err = get(k); err != nil {
			return err
		}
	}
	row, ok := tecEventRow(postID, v[0], v[1], v[2], v[3], v[4], v[5])
	if !ok {
		return nil
	}
	if err := tx.UpsertTECEvent(ctx, row); err != nil {
		return err
	}
	occ, err := tx.Occurrence(ctx, postID)
	if err != nil {
		return err
	}
	o := &OccurrenceRow{EventID: row.EventID, PostID: postID, StartDate: row.StartDate, StartDateUTC: row.StartDateUTC,
		EndDate: row.EndDate, EndDateUTC: row.EndDateUTC, Duration: row.Duration}
	if occ != nil {
		o.OccurrenceID = occ.OccurrenceID
	}
	o.Hash = OccurrenceHash(o)
	return tx.SaveOccurrence(ctx, o)
}

// tecEventRow builds and validates the tec_events row of an event from its meta (the plugin's Event
// model validators): parseable dates with end >= start, a valid zone, UTC copies that match the
// local dates in that zone, and a duration between zero and the elapsed time.
func tecEventRow(postID int64, start, end, zone, duration, startUTC, endUTC string) (*TECEventRow, bool) {
	if _, err := LoadZone(zone); err != nil {
		return nil, false
	}
	// Start_Date_UTC / End_Date_UTC check the UTC copies in build_timezone_object($timezone): for
	// an offset name ("UTC-8") the region PHP names for it, the zone the dates were converted in.
	loc := BuildTimezoneObject(zone, true, nil)
	s, err1 := time.ParseInLocation(DBDateTime, start, loc)
	e, err2 := time.ParseInLocation(DBDateTime, end, loc)
	if err1 != nil || err2 != nil || e.Before(s) {
		return nil, false
	}
	if s.UTC().Format(DBDateTime) != startUTC || e.UTC().Format(DBDateTime) != endUTC {
		return nil, false
	}
	elapsed := int64(e.Sub(s) / time.Second)
	d := elapsed
	if duration != "" && duration != "0" {
		n, err := strconv.ParseInt(duration, 10, 64)
		if err != nil || n < 0 || n > elapsed {
			return nil, false
		}
		d = n
	}
	// The plugin's statements leave the fitting to MySQL, which (in WordPress' non-strict mode) cuts
	// the zone to its VARCHAR(30) and clamps the duration to its MEDIUMINT.
	if d > maxMediumInt {
		d = maxMediumInt
	}
	if r := []rune(zone); len(r) > 30 {
		zone = string(r[:30])
	}
	return &TECEventRow{PostID: postID, StartDate: start, EndDate: end, Timezone: zone,
		StartDateUTC: startUTC, EndDateUTC: endUTC, Duration: d}, true
}

// maxMediumInt is the largest value of the tec tables' MEDIUMINT duration columns.
const maxMediumInt = 8388607

// OccurrenceHash is the plugin's occurrence hash: sha1 of the post ID, dates and duration.
func OccurrenceHash(o *OccurrenceRow) string {
	sum := sha1.Sum([]byte(fmt.Sprintf("%d:%s:%s:%s:%s:%d", o.PostID, o.StartDate, o.EndDate, o.StartDateUTC, o.EndDateUTC, o.Duration)))
	return hex.EncodeToString(sum[:])
}

// ErrEventInTrash is the plugin's answer to a DELETE of a trashed event.
var ErrEventInTrash = &Error{Code: "event-is-in-trash", Message: "The event is already trashed", Status: 410}

// TrashEvent is the plugin's DELETE: wp_trash_post, with the status the plugin remembers for its
// "ignored events" feature.
func TrashEvent(ctx context.Context, tx WriteTx, site *Site, user *User, id int64) error {
	p, err := tx.LockPost(ctx, id)
	if err != nil {
		return err
	}
	if p == nil {
		return fmt.Errorf("event %d vanished", id)
	}
	// Checked again under the lock: of trashes sent at once, one trashes the event and the others
	// find it trashed (rather than each storing "trash" as the status to restore).
	if p.Status == "trash" {
		return ErrEventInTrash
	}
	if err := tx.AddMeta(ctx, id, metaPrevStatus, p.Status); err != nil {
		return err
	}
	_, err = TrashPost(ctx, tx, site, user, p)
	return err
}
