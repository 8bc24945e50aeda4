package tribe

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/cost"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
	"github.com/calendard/calendard/internal/strtotime"
)

// Event writes: POST /events, POST/PUT/PATCH/DELETE /events/{id} and /events/by-slug/{slug}
// (Single_Event::create/update/delete, reference-behaviour §7).

// create is POST /events: 201 with the new event's record.
func (h *eventsHandler) create(r *handlers.Request) (*handlers.Response, error) {
	var id int64
	err := handlers.Write(r, h.writer, func(tx calendard.WriteTx) error {
		w, err := h.prepare(r, tx, 0)
		if err != nil {
			return err
		}
		id, err = calendard.SaveEvent(r.Context(), tx, r.Site, r.User, w)
		return err
	})
	if err != nil {
		return nil, r.Unconfirmed("event", id, err)
	}
	return h.written(r, id, 201)
}

// update is POST/PUT/PATCH /events/{id}.
func (h *eventsHandler) update(r *handlers.Request) (*handlers.Response, error) {
	return h.updateID(r, php.Int(r.Value("id")))
}

// updateBySlug is POST/PUT/PATCH /events/by-slug/{slug}. The slug parameter is also the writable
// slug, so a body "slug" replaces the path's (and names an event that usually does not exist).
func (h *eventsHandler) updateBySlug(r *handlers.Request) (*handlers.Response, error) {
	id, err := h.idOfSlug(r)
	if err != nil {
		return nil, err
	}
	// The route only checks the general capability; the post's own edit check applies here.
	if err := h.canEdit(r, id); err != nil {
		return nil, err
	}
	return h.updateID(r, id)
}

func (h *eventsHandler) updateID(r *handlers.Request, id int64) (*handlers.Response, error) {
	if _, err := h.existing(r, id); err != nil {
		return nil, err
	}
	err := handlers.Write(r, h.writer, func(tx calendard.WriteTx) error {
		w, err := h.prepare(r, tx, id)
		if err != nil {
			return err
		}
		_, err = calendard.SaveEvent(r.Context(), tx, r.Site, r.User, w)
		return err
	})
	if err != nil {
		return nil, r.Unconfirmed("event", id, err)
	}
	return h.written(r, id, 200)
}

// delete is DELETE /events/{id}: the event goes to the trash (there is no permanent delete).
func (h *eventsHandler) delete(r *handlers.Request) (*handlers.Response, error) {
	return h.trash(r, php.Int(r.Value("id")))
}

// deleteBySlug is DELETE /events/by-slug/{slug}.
func (h *eventsHandler) deleteBySlug(r *handlers.Request) (*handlers.Response, error) {
	id, err := h.idOfSlug(r)
	if err != nil {
		return nil, err
	}
	if err := h.canDelete(r, id); err != nil {
		return nil, err
	}
	return h.trash(r, id)
}

func (h *eventsHandler) trash(r *handlers.Request, id int64) (*handlers.Response, error) {
	p, err := h.existing(r, id)
	if err != nil {
		return nil, err
	}
	if p.Status == "trash" {
		return nil, &calendard.Error{Code: "event-is-in-trash", Message: "The event is already trashed", Status: 410}
	}
	err = handlers.Write(r, h.writer, func(tx calendard.WriteTx) error {
		return calendard.TrashEvent(r.Context(), tx, r.Site, r.User, id)
	})
	if err != nil {
		return nil, r.Unconfirmed("event", id, err)
	}
	return h.written(r, id, 200)
}

// idOfSlug resolves the by-slug routes' slug (0 when no event has it).
func (h *eventsHandler) idOfSlug(r *handlers.Request) (int64, error) {
	s, _ := r.Value("slug").(string)
	return h.postBySlugPath(r, s, calendard.PostTypeEvent)
}

// existing is the plugin's check before a write: 404 for unknown IDs, 400 for other post types.
func (h *eventsHandler) existing(r *handlers.Request, id int64) (*calendard.Post, error) {
	p, err := h.posts.PostByID(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, &calendard.Error{Code: "rest-event-not-found", Status: 404, Message: fmt.Sprintf(calendard.MsgEventNotFoundFmt, id)}
	}
	if p.Type != calendard.PostTypeEvent {
		return nil, &calendard.Error{Code: "rest-invalid-event-id", Status: 400, Message: calendard.MsgInvalidEventID}
	}
	return p, nil
}

func (h *eventsHandler) canEdit(r *handlers.Request, id int64) error {
	if id == 0 {
		return nil // answered with 404 by existing()
	}
	return h.canPostID(r, calendard.PostTypeEvent, "edit", id)
}

func (h *eventsHandler) canDelete(r *handlers.Request, id int64) error {
	if id == 0 {
		return nil
	}
	return h.canPostID(r, calendard.PostTypeEvent, "delete", id)
}

// written answers a write with the event's record (get_event_data, without JSON-LD).
func (h *eventsHandler) written(r *handlers.Request, id int64, status int) (*handlers.Response, error) {
	return r.ReadBack("event", id, func() (*handlers.Response, error) {
		e, err := h.events.EventByID(r.Context(), id)
		if err != nil {
			return nil, err
		}
		if e == nil {
			return nil, &calendard.Error{Code: "rest-event-not-found", Status: 404, Message: fmt.Sprintf(calendard.MsgEventNotFoundFmt, id)}
		}
		return &handlers.Response{Status: status, Body: h.eventRecord(r, e, false)}, nil
	})
}

// prepare is Single_Event::prepare_postarr: the request parameters as Tribe__Events__API takes them.
// Linked venues and organizers given as data are created here, inside the request's transaction.
func (h *eventsHandler) prepare(r *handlers.Request, tx calendard.WriteTx, id int64) (*calendard.EventWrite, error) {
	w := &calendard.EventWrite{ID: id, Status: calendard.ScaleBackStatus(r.User, stringParam(r, "status"))}
	strp := func(name string) *string {
		if v := r.Value(name); v != nil {
			s, _ := php.String(v)
			s = calendard.Unslash(s)
			return &s
		}
		return nil
	}
	// Text filters (kses for users without unfiltered_html) are wp_insert_post's: calendard.SavePost.
	w.Title, w.Content, w.Excerpt, w.Slug = strp("title"), strp("description"), strp("excerpt"), strp("slug")
	if v := r.Value("author"); v != nil {
		a := php.Int(v)
		w.Author = &a
	}
	// Dates are Tribe__Date_Utils::build_date_object($value, $request['timezone']): parsed in the
	// zone build_timezone_object makes of the request's timezone (the site's when it is absent),
	// or in the zone the string names; timestamps are UTC. The wall clock is kept as it reads.
	tzRaw, tzGiven := r.Value("timezone"), r.Value("timezone") != nil
	tzName, _ := php.String(tzRaw)
	parseZone := calendard.BuildTimezoneObject(tzName, tzGiven, r.Site)
	if v := r.Value("date"); v != nil {
		if d, ok := wallClock(v, parseZone, r.Now); ok {
			w.Date = &d
		}
	}
	if v := r.Value("date_utc"); v != nil {
		if d, ok := postDateGMT(r, v); ok {
			w.DateGMT = &d
		}
	}
	if tz := stringParam(r, "timezone"); !php.Empty(tz) {
		w.Timezone = calendard.Unslash(tz)
	}
	w.AllDay = truthyParam(r, "all_day")
	start, end := r.Value("start_date"), r.Value("end_date")
	if !php.Empty(start) && !php.Empty(end) {
		s, ok1 := wallClock(start, parseZone, r.Now)
		e, ok2 := wallClock(end, parseZone, r.Now)
		if ok1 && ok2 {
			w.Start, w.End = s, e
		}
	}
	if v := r.Value("image"); v != nil {
		img, err := h.imageID(r, v)
		if err != nil {
			return nil, err
		}
		w.ImageID = img
	}
	if v := r.Value("cost"); v != nil {
		st := costParam(v)
		w.Cost = &st
	}
	if s, ok := r.Value("website").(string); ok {
		w.Website = calendard.Unslash(sanitizeURL(s))
	}
	w.ShowMap, w.ShowMapLink = truthyParam(r, "show_map"), truthyParam(r, "show_map_link")
	w.HideFromUpcoming, w.Sticky, w.Featured = truthyParam(r, "hide_from_listings"), truthyParam(r, "sticky"), truthyParam(r, "featured")

	// Terms are assigned only by users who may assign them (assign_terms).
	if v := r.Value("categories"); v != nil && r.User.Can(calendard.CapsOf(calendard.PostTypeEvent).Edit) {
		items := termItems(v)
		w.Categories = &items
	}
	if v := r.Value("tags"); v != nil && r.User.Can("edit_posts") {
		items := termItems(v)
		w.Tags = &items
	}

	var err error
	if w.VenueID, err = h.insertVenue(r, tx, r.Value("venue")); err != nil {
		return nil, err
	}
	if w.OrganizerIDs, err = h.insertOrganizers(r, tx, r.Value("organizer")); err != nil {
		return nil, err
	}
	return w, nil
}

// stringParam returns a string parameter ("" when absent or not a string).
func stringParam(r *handlers.Request, name string) string {
	s, _ := r.Value(name).(string)
	return s
}

// truthyParam is tribe_is_truthy($request[name]).
func truthyParam(r *handlers.Request, name string) bool {
	return calendard.TribeIsTruthy(r.Value(name))
}

// costParam reads the cost parameter: a list stores one row per item, anything else one row.
func costParam(v any) cost.Stored {
	if php.IsArray(v) {
		var items []string
		for _, it := range php.List(v) {
			if s, ok := php.String(it); ok && !php.IsArray(it) {
				items = append(items, calendard.Unslash(s))
			}
		}
		return cost.ForWrite(items, true)
	}
	s, _ := php.String(v)
	return cost.ForWrite([]string{calendard.Unslash(s)}, false)
}

var termSplitRe = regexp.MustCompile(`[\t\n\v\f\r ]*,[\t\n\v\f\r ]*`)

// termItems is the categories/tags parameter as translate_terms_to_ids reads it: a string is split on
// commas, anything else taken as a list. PHP-empty values remove every term.
func termItems(v any) []calendard.TermInput {
	out := []calendard.TermInput{}
	if php.Empty(v) {
		return out
	}
	var items []any
	switch x := v.(type) {
	case string:
		for _, s := range termSplitRe.Split(x, -1) {
			items = append(items, s)
		}
	case []any, *phpjson.Object:
		items = php.List(x)
	default:
		items = []any{x}
	}
	for _, it := range items {
		if php.IsArray(it) {
			continue // PHP fails on nested arrays; they name no term
		}
		s, _ := php.String(it)
		in := calendard.TermInput{Text: s}
		if _, isBool := it.(bool); !isBool && php.IsNumeric(it) {
			in.Numeric = true
			if in.ID = php.Int(it); in.ID < 0 {
				in.ID = -in.ID // absint
			}
		}
		out = append(out, in)
	}
	return out
}

// insertVenue is the venue endpoint's insert() for the event's venue parameter: empty values link no
// venue (and keep the current one on update), an ID or {"id": ID} links that venue, venue data
// creates one. Lists are not supported without add-ons.
func (h *eventsHandler) insertVenue(r *handlers.Request, tx calendard.WriteTx, v any) (int64, error) {
	if php.Empty(v) {
		return 0, nil
	}
	fail := &calendard.Error{Code: "could-not-create-venue", Message: "The venue could not be created from the provided data", Status: 400}
	switch x := v.(type) {
	case *phpjson.Object:
		if x.IsList() {
			return 0, fail
		}
		return h.linkedItem(r, tx, x, calendard.PostTypeVenue, fail)
	case []any:
		return 0, fail
	}
	if php.IsNumeric(v) {
		return h.linkedID(r, php.Int(v), calendard.PostTypeVenue)
	}
	return 0, fail
}

// insertOrganizers is the organizer endpoint's insert() for the event's organizer parameter: every
// item (of a list, or of an object taken field by field) is an ID, {"id": ID} or organizer data.
func (h *eventsHandler) insertOrganizers(r *handlers.Request, tx calendard.WriteTx, v any) ([]int64, error) {
	out := []int64{}
	if php.Empty(v) {
		return out, nil
	}
	fail := &calendard.Error{Code: "could-not-create-organizer", Message: "The organizer could not be created from the provided data", Status: 400}
	var items []any
	switch x := v.(type) {
	case []any, *phpjson.Object:
		items = php.List(x)
	default:
		items = []any{x}
	}
	seen := map[int64]bool{}
	for _, it := range items {
		if php.Empty(it) {
			continue // the plugin's insert() returns false for empty entries; they link nothing
		}
		var id int64
		var err error
		switch x := it.(type) {
		case *phpjson.Object:
			id, err = h.linkedItem(r, tx, x, calendard.PostTypeOrganizer, fail)
		default:
			if !php.IsNumeric(it) {
				return nil, fail
			}
			id, err = h.linkedID(r, php.Int(it), calendard.PostTypeOrganizer)
		}
		if err != nil {
			return nil, err
		}
		if id > 0 && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// linkedItem handles one object: {"id": ID} links, anything else is data for a new post.
func (h *eventsHandler) linkedItem(r *handlers.Request, tx calendard.WriteTx, o *phpjson.Object, postType string, fail *calendard.Error) (int64, error) {
	if idv, ok := o.Get("id"); ok && !php.Empty(idv) {
		if !php.IsNumeric(idv) {
			return 0, errInvalidLinkedID
		}
		return h.linkedID(r, php.Int(idv), postType)
	}
	lh := h.venues
	if postType == calendard.PostTypeOrganizer {
		lh = h.organizers
	}
	if lh == nil {
		return 0, fail
	}
	id, err := lh.saveInline(r, tx, o)
	if err != nil {
		var e *calendard.Error
		if errors.As(err, &e) {
			return 0, fail
		}
		return 0, err
	}
	if id == 0 {
		return 0, fail
	}
	return id, nil
}

var errInvalidLinkedID = &calendard.Error{Code: "invalid-linked-post-id", Message: "The provided linked post ID is not valid", Status: 400}

// linkedID checks that an ID names a post of the linked type.
func (h *eventsHandler) linkedID(r *handlers.Request, id int64, postType string) (int64, error) {
	t, err := h.postType(r, id)
	if err != nil {
		return 0, err
	}
	if t != postType {
		return 0, errInvalidLinkedID
	}
	return id, nil
}

// validLinkedOrEmpty is is_venue_id_or_entry_or_empty / is_organizer_id_or_entry_or_empty: empty
// (or an array of empty values), IDs of the type (a CSV string is split), or items each an ID of the
// type, {"id": ID of the type}, or data the create endpoint's parameters accept.
func (l *lookups) validLinkedOrEmpty(postType string) func(*handlers.Request, any) error {
	return func(r *handlers.Request, v any) error {
		if php.Empty(v) || (php.IsArray(v) && allEmpty(php.List(v))) {
			return nil
		}
		var items []any
		switch x := v.(type) {
		case *phpjson.Object:
			if x.IsList() {
				items = x.Values()
			} else {
				items = []any{x}
			}
		case []any:
			items = x
		default:
			s, _ := php.String(v)
			for _, part := range termSplitRe.Split(s, -1) {
				items = append(items, part)
			}
		}
		for _, it := range items {
			o, isObj := it.(*phpjson.Object)
			switch {
			case php.IsNumeric(it):
				if ok, err := l.isPostOfType(r, it, postType); err != nil || !ok {
					return orInvalid(err)
				}
			case isObj && !o.IsList():
				if idv, ok := o.Get("id"); ok && !php.Empty(idv) {
					if ok, err := l.isPostOfType(r, idv, postType); err != nil || !ok {
						return orInvalid(err)
					}
					continue
				}
				if err := l.validLinkedEntry(r, postType, o); err != nil {
					return err
				}
			default:
				return handlers.ErrInvalid
			}
		}
		return nil
	}
}

// allEmpty reports whether array_filter() would leave nothing.
func allEmpty(vs []any) bool {
	for _, v := range vs {
		if !php.Empty(v) {
			return false
		}
	}
	return true
}

func orInvalid(err error) error {
	if err != nil {
		return err
	}
	return handlers.ErrInvalid
}

// validTimezoneOrEmpty is is_timezone_or_empty: empty, anything TEC reads as a UTC offset ("UTC"
// followed by something), or a zone PHP's DateTimeZone accepts (leading blanks allowed).
func validTimezoneOrEmpty(_ *handlers.Request, v any) error {
	if php.Empty(v) {
		return nil
	}
	s, ok := v.(string)
	if !ok {
		return handlers.ErrInvalid
	}
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "UTC") && len(t) > 3 {
		return nil
	}
	if _, err := strtotime.ParseTimezone(strings.TrimLeft(s, " \t\n\r\v")); err != nil {
		return handlers.ErrInvalid
	}
	return nil
}
