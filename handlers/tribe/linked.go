package tribe

import (
	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
)

// linkedHandler serves /venues and /organizers (Archive_Venue/Archive_Organizer and the single
// endpoints): the two post types behave the same way apart from names and search fields.
type linkedHandler struct {
	*lookups
	*records
	sync        *syncer
	linked      calendard.LinkedService
	writer      calendard.Writer
	geo         *geoFilter
	strictReads bool // Options.StrictReads
	postType    string
	kind        string // "venue" or "organizer"
	plural      string // route segment and list key
}

// listArgs are the archive parameters, in the plugin's declaration order.
func (h *linkedHandler) listArgs() []*handlers.Arg {
	upcoming := &handlers.Arg{Name: "only_with_upcoming", SwaggerType: "boolean", HasDefault: true,
		Default: func(*handlers.Request) any { return false }, Description: capitalize(h.plural) + " should have upcoming events associated to them"}
	return []*handlers.Arg{
		pageArg(),
		perPageArg("The number of " + h.plural + " to return on each page"),
		{Name: "search", Type: "string", Validate: validString,
			Description: capitalize(h.plural) + " should contain the specified string in the title, description or custom fields"},
		{Name: "event", Type: "integer", Validate: h.validEventID, Description: capitalize(h.plural) + " should be related to this event"},
		{Name: "has_events", SwaggerType: "boolean", Description: capitalize(h.plural) + " should have events associated to them"},
		upcoming,
		// The reference describes the venue status parameter as the organizer's too.
		{Name: "status", Format: "string", SwaggerType: "string", Description: "The organizer post status",
			Validate: validStatusList(h.postType)},
	}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// list is GET /venues and /organizers.
func (h *linkedHandler) list(r *handlers.Request) (*handlers.Response, error) {
	if syncAsked(r) {
		return h.sync.answer(r, h.plural, h.plural, append(h.listArgs(), h.geo.args(h.postType)...), h.syncRecords(r))
	}
	svc := h.linked
	page := php.Int(r.Value("page"))
	if page < 1 {
		page = 1
	}
	perPage := int64(r.Site.PerPage)
	if v := r.Value("per_page"); !php.Empty(v) {
		perPage = php.Int(v)
	}
	f := calendard.LinkedFilter{PostType: h.postType, Limit: int(perPage), Offset: handlers.RowsBefore(page, perPage)}
	var statusParam []string
	if v, ok := r.Param("status"); ok {
		statusParam = statusList(r, h.postType, v)
		f.Statuses = statusParam
	} else if !r.User.Can(calendard.CapsOf(h.postType).Edit) {
		f.Statuses = []string{"publish"}
	}
	if h.strictReads && !publishedOnly(f.Statuses) {
		f.ReadableBy = calendard.ReadRuleFor(r.User, h.postType)
	}
	var err error
	if f.ModifiedAfter, f.ModifiedBefore, err = modifiedBounds(r); err != nil {
		return nil, err
	}

	// Every active ID filter narrows the set (post__in intersection).
	narrow := func(ids []int64) { narrowIn(&f, ids) }
	if h.postType == calendard.PostTypeVenue {
		near, err := h.geo.venues(r, true)
		if err != nil {
			return nil, err
		}
		if near != nil || (h.geo.served() && restBoolParam(r, "geoloc")) {
			narrow(near)
		}
	}
	if err := h.eventFilters(r, &f); err != nil {
		return nil, err
	}

	// search: matches restrict the list; no match empties the page but not total or pagination
	// (reference quirk, the counts are computed without the search).
	countFilter := f
	searchEmpty := false
	if s, ok := r.Param("search"); ok {
		str, _ := s.(string)
		ids, err := svc.SearchLinked(r.Context(), h.postType, str)
		if err != nil {
			return nil, err
		}
		if len(ids) == 0 {
			searchEmpty = true
		} else {
			narrow(ids)
			countFilter = f
		}
	}

	var pageIDs []int64
	total := 0
	tok := h.sync.listToken(r, h.plural) // before loading: the list reflects every change up to it
	gen := h.generation()                // before loading: records rendered now are at least this new
	if searchEmpty {
		_, total, err = svc.FindLinked(r.Context(), withLimit(countFilter, 0))
	} else {
		pageIDs, total, err = svc.FindLinked(r.Context(), f)
	}
	if err != nil {
		return nil, err
	}
	if len(pageIDs) == 0 && page > 1 {
		return nil, &calendard.Error{Code: h.kind + "-archive-page-not-found", Status: 404,
			Message: "The requested " + h.kind + " archive page does not exist"}
	}
	posts, err := svc.LinkedPosts(r.Context(), pageIDs)
	if err != nil {
		return nil, err
	}
	records := make([]any, 0, len(posts))
	for _, p := range posts {
		records = append(records, h.listRecord(r, p, gen))
	}

	params := []calendard.KV{{Key: "page", Value: page}, {Key: "per_page", Value: perPage}}
	eventParam, hasEvent := r.Param("event")
	if hasEvent {
		params = append(params, calendard.KV{Key: "event", Value: php.Int(eventParam)})
	}
	if hasEvents, ok := r.Param("has_events"); ok {
		params = append(params, calendard.KV{Key: "has_events", Value: orEmpty(hasEvents)})
	}
	status := "publish"
	if f.Statuses == nil {
		status = "any"
	} else if statusParam != nil {
		status = joinComma(statusParam)
	}
	params = append(params, calendard.KV{Key: "status", Value: status})
	params = append(params, modifiedURLArgs(r)...)
	restURL := handlers.AddQueryArg(r.RestURL(h.plural+"/"), params)

	body := phpjson.Obj(h.plural, records, "rest_url", restURL)
	return withToken(pagedList(body, restURL, page, perPage, total), tok), nil
}

// syncRecords renders the list records of the posts the caller can see among ids, as the list
// does with every status it may list (trash excluded).
func (h *linkedHandler) syncRecords(r *handlers.Request) func(ids []int64) (map[int64]any, error) {
	return func(ids []int64) (map[int64]any, error) {
		f := calendard.LinkedFilter{PostType: h.postType, In: ids, Limit: len(ids)}
		if !r.User.Can(calendard.CapsOf(h.postType).Edit) {
			f.Statuses = []string{"publish"}
		}
		if h.strictReads && !publishedOnly(f.Statuses) {
			f.ReadableBy = calendard.ReadRuleFor(r.User, h.postType)
		}
		gen := h.generation()
		visible, _, err := h.linked.FindLinked(r.Context(), f)
		if err != nil {
			return nil, err
		}
		posts, err := h.linked.LinkedPosts(r.Context(), visible)
		if err != nil {
			return nil, err
		}
		out := make(map[int64]any, len(posts))
		for _, p := range posts {
			out[p.Post.ID] = h.listRecord(r, p, gen)
		}
		return out, nil
	}
}

// eventFilters narrows a venue or organizer list by its events: those of one event (event), those
// with or without events (has_events), and those of the upcoming events (only_with_upcoming).
func (h *linkedHandler) eventFilters(r *handlers.Request, f *calendard.LinkedFilter) error {
	eventParam, hasEvent := r.Param("event")
	if hasEvent && !php.Empty(eventParam) {
		ids, err := h.linked.LinkedOfEvents(r.Context(), h.postType, []int64{php.Int(eventParam)})
		if err != nil {
			return err
		}
		narrowIn(f, ids)
	}
	hasEvents, hasHasEvents := r.Param("has_events")
	if hasHasEvents {
		ids, err := h.linked.LinkedWithEvents(r.Context(), h.postType)
		if err != nil {
			return err
		}
		s, _ := php.String(hasEvents)
		if calendard.IsTruthyWord(s) || hasEvents == true {
			narrowIn(f, ids)
		} else {
			f.NotIn = append(f.NotIn, ids...)
		}
	}
	if v, ok := r.Param("only_with_upcoming"); ok {
		s, _ := php.String(v)
		if calendard.IsTruthyWord(s) || v == true {
			// Upcoming = the first default-page-size events starting now or later, where "now" is the UTC
			// clock read as site time (reference quirk), with the request's statuses.
			from := r.Now.UTC().Format(calendard.DBDateTime)
			evIDs, err := h.linked.UpcomingEventIDs(r.Context(), r.Site, f.Statuses, from, r.Site.PerPage)
			if err != nil {
				return err
			}
			ids, err := h.linked.LinkedOfEvents(r.Context(), h.postType, evIDs)
			if err != nil {
				return err
			}
			narrowIn(f, ids)
		}
	}
	return nil
}

// narrowIn narrows f's post__in to ids: an intersection when a filter set it already.
func narrowIn(f *calendard.LinkedFilter, ids []int64) {
	if ids == nil {
		ids = []int64{}
	}
	if f.In == nil {
		f.In = ids
		return
	}
	keep := map[int64]bool{}
	for _, id := range ids {
		keep[id] = true
	}
	var out []int64
	for _, id := range f.In {
		if keep[id] {
			out = append(out, id)
		}
	}
	if out == nil {
		out = []int64{}
	}
	f.In = out
}

func withLimit(f calendard.LinkedFilter, limit int) calendard.LinkedFilter {
	f.Limit = limit
	return f
}

func joinComma(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ","
		}
		out += s
	}
	return out
}

// record renders a venue or organizer.
func (h *linkedHandler) record(r *handlers.Request, p *calendard.LinkedPost, single bool) *phpjson.Object {
	if h.postType == calendard.PostTypeVenue {
		return venueRecord(r, &calendard.Venue{Post: p.Post, Image: p.Image}, single)
	}
	return organizerRecord(r, &calendard.Organizer{Post: p.Post, Image: p.Image}, single)
}

// listRecord is a venue's or organizer's list record, through the rendered-record cache as event
// list records are (their description goes through the_content's filters on every rendering).
func (h *linkedHandler) listRecord(r *handlers.Request, p *calendard.LinkedPost, gen uint64) any {
	return h.sharedListRecord(r, p.Post, gen, func() *phpjson.Object { return h.record(r, p, false) })
}

// getArgs are the GET parameters of /venues/{id}: the ID must name a post of the type.
func (h *linkedHandler) getArgs() []*handlers.Arg {
	a := h.linkedIDArg(h.kind)
	a.Validate = func(r *handlers.Request, v any) error {
		ok, err := h.isPostOfType(r, v, h.postType)
		if err != nil {
			return err
		}
		if !ok {
			return handlers.ErrInvalid
		}
		return nil
	}
	return []*handlers.Arg{a}
}

// get is GET /venues/{id} and /organizers/{id}.
func (h *linkedHandler) get(r *handlers.Request) (*handlers.Response, error) {
	return h.getByID(r, php.Int(r.Value("id")))
}

// getBySlug is GET /venues/by-slug/{slug}.
func (h *linkedHandler) getBySlug(r *handlers.Request) (*handlers.Response, error) {
	s, _ := r.Value("slug").(string)
	id, err := h.postBySlugPath(r, s, h.postType)
	if err != nil {
		return nil, err
	}
	return h.getByID(r, id)
}

func (h *linkedHandler) getByID(r *handlers.Request, id int64) (*handlers.Response, error) {
	posts, err := h.linked.LinkedPosts(r.Context(), []int64{id})
	if err != nil {
		return nil, err
	}
	if len(posts) == 0 || posts[0].Type != h.postType {
		return nil, &calendard.Error{Code: "rest_invalid_param", Status: 400, Message: "Invalid parameter(s): id"}
	}
	p := posts[0]
	ref := &calendard.PostRef{ID: p.ID, Type: p.Type, Status: p.Status, Author: p.Author}
	if p.Status != "publish" && !r.User.CanReadPost(ref) {
		return nil, &calendard.Error{Code: h.kind + "-not-accessible", Status: 403,
			Message: "The requested " + h.kind + " is not accessible"}
	}
	return handlers.Ok(h.record(r, p, true)), nil
}
