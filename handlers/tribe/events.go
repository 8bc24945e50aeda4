package tribe

import (
	"math"
	"strings"

	"github.com/calendard/calendard/handlers"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
)

// eventsHandler serves /events, /events/{id} and /events/by-slug/{slug}.
type eventsHandler struct {
	*lookups
	*records
	sync   *syncer
	events calendard.EventService
	ranked RankedEvents // nil: orderby=relevance is ignored
	writer calendard.Writer
	geo    *geoFilter
	// strictReads filters the list by the read_post rule (Options.StrictReads).
	strictReads bool
	// venues and organizers create the linked posts an event write carries as data.
	venues, organizers *linkedHandler
	// icalMax caps the events of a list answered as iCalendar.
	icalMax int
}

// listArgs are the archive parameters of GET /events, in the plugin's declaration order.
func (h *eventsHandler) listArgs() []*handlers.Arg {
	timeArg := func(name, desc string) *handlers.Arg {
		return &handlers.Arg{Name: name, Description: desc, Validate: validTime, SwaggerType: "string"}
	}
	list := func(name, desc string, validate func(*handlers.Request, any) error) *handlers.Arg {
		return &handlers.Arg{Name: name, Description: desc, ItemsType: "integer", Validate: validate,
			SwaggerType: "array", CollectionFormat: "csv"}
	}
	return []*handlers.Arg{
		pageArg(),
		perPageArg("The number of events to return on each page"),
		{Name: "start_date", Description: "Events that start on the specified date", Validate: validTime, SwaggerType: "string",
			HasDefault: true, Default: func(r *handlers.Request) any { return defaultStartDate(r.Site, r.Now) }},
		{Name: "end_date", Description: "Events that end on the specified date", Validate: validTime, SwaggerType: "string",
			HasDefault: true, Default: func(r *handlers.Request) any { return defaultEndDate(r.Now) }},
		timeArg("starts_before", "Events that start before the specified date"),
		timeArg("starts_after", "Events that start after the specified date"),
		timeArg("ends_before", "Events that end before the specified date"),
		timeArg("ends_after", "Events that end after the specified date"),
		{Name: "strict_dates", Validate: validString, SwaggerType: "string", HasDefault: true,
			Default:     func(*handlers.Request) any { return "false" },
			Description: "Dates set using the start_date/end_date, starts_*/ends_* are set to start at the specified times. The default behavior is to include the entire days."},
		{Name: "search", Type: "string", Validate: validString,
			Description: "Events should contain the specified string in the title or description"},
		list("categories", "Events should be assigned one of the specified categories slugs or IDs", h.validTermList(calendard.TaxonomyCategory)),
		list("tags", "Events should be assigned one of the specified tags slugs or IDs", h.validTermList(calendard.TaxonomyTag)),
		list("venue", "Events should be assigned one of the specified venue IDs", h.validPostIDList(calendard.PostTypeVenue)),
		list("organizer", "Events should be assigned one of the specified organizer IDs", h.validPostIDList(calendard.PostTypeOrganizer)),
		{Name: "featured", Type: "boolean", Description: "Events should be filtered by their featured status"},
		{Name: "status", Format: "string", SwaggerType: "string", Description: "The event post status",
			Validate: validStatusList(calendard.PostTypeEvent)},
		{Name: "geoloc", Type: "boolean",
			Description: "Requires Events Calendar Pro. Events should be filtered by whether their venue has geolocation data"},
		{Name: "geoloc_lat", Format: "double", SwaggerType: "number",
			Description: "Requires Events Calendar Pro. Events should be filtered by their venue latitude location, must also provide geoloc_lng"},
		{Name: "geoloc_lng", Format: "double", SwaggerType: "number",
			Description: "Requires Events Calendar Pro. Events should be filtered by their venue longitude location, must also provide geoloc_lat"},
		{Name: "include", ItemsType: "integer", SwaggerType: "array", CollectionFormat: "csv", Validate: validPositiveIntList,
			Sanitize:    func(_ *handlers.Request, v any) (any, error) { return php.ListToArray(v), nil },
			Description: "Include events with one of the post IDs specified in the array of CSV list, date filters will be ignored."},
		{Name: "post_parent", Type: "integer", Validate: h.validEventID,
			Description: "Events should be filtered by their post_parent being the specified one."},
		{Name: "ticketed", Type: "boolean", Validate: validTicketed, Description: "Filter events with or without tickets."},
	}
}

// pageArg is the shared "page" archive parameter.
func pageArg() *handlers.Arg {
	return &handlers.Arg{Name: "page", Type: "integer", Validate: validPositiveInt, HasDefault: true,
		Default: func(*handlers.Request) any { return int64(1) }, Description: "The archive page to return"}
}

// perPageArg is the shared "per_page" archive parameter: default from the site options, capped at 50.
func perPageArg(desc string) *handlers.Arg {
	return &handlers.Arg{Name: "per_page", Type: "integer", Validate: validPerPage, HasDefault: true,
		Default: func(r *handlers.Request) any { return r.Site.PerPageRaw }, Description: desc,
		Sanitize: func(_ *handlers.Request, v any) (any, error) {
			if php.Empty(v) {
				return false, nil
			}
			return min(int64(50), php.Int(v)), nil
		}}
}

// validPerPage is is_positive_int; a site whose option is -1 fails every list here, as the reference.
func validPerPage(r *handlers.Request, v any) error {
	if r.Site.PerPageInvalid && !r.QueryHas("per_page") {
		return handlers.ErrInvalid
	}
	if s, ok := v.(string); ok && s == "" && !r.QueryHas("per_page") {
		return nil
	}
	return validPositiveInt(r, v)
}

// validTicketed is supports_ticketed: asking for ticketed events needs Event Tickets, which calendard
// does not provide; any other value passes here (and non-booleans then fail the type check).
func validTicketed(_ *handlers.Request, v any) error {
	if s, _ := v.(string); calendard.IsTruthyWord(s) || v == true {
		return &calendard.Error{Code: "event-tickets-not-active", Message: "Event Tickets plugin is not activated.", Status: 400}
	}
	return nil
}

// validStatusList is filter_post_status_list used as a validator: callers without the post type's
// edit capability may only ask for "publish"; others for registered statuses.
func validStatusList(postType string) func(*handlers.Request, any) error {
	return func(r *handlers.Request, v any) error {
		if statusList(r, postType, v) == nil {
			return handlers.ErrInvalid
		}
		return nil
	}
}

// statusList returns the requested statuses, or nil when the request may not use them.
func statusList(r *handlers.Request, postType string, v any) []string {
	var stati []string
	for _, it := range php.ListToArray(v) {
		s, _ := php.String(it)
		stati = append(stati, s)
	}
	if !r.User.Can(calendard.CapsOf(postType).Edit) {
		if len(stati) == 1 && stati[0] == "publish" {
			return stati
		}
		return nil
	}
	if len(stati) == 0 {
		return nil
	}
	for _, s := range stati {
		if !calendard.IsRegisteredStatus(s) {
			return nil
		}
	}
	return stati
}

// eventList is a parsed GET /events: the store's filter and what the list's rest_url repeats.
type eventList struct {
	f                calendard.EventFilter
	page, perPage    int64
	urlStart, urlEnd *string
	search           string
	hasSearch        bool
	statusParam      []string
	featured         any
	hasFeatured      bool
}

// list is GET /events (Archive_Event::get): the filter from the parameters, the store's page, then
// the records and the list's rest_url.
func (h *eventsHandler) list(r *handlers.Request) (*handlers.Response, error) {
	if syncAsked(r) && !icalAsked(r) {
		return h.sync.answer(r, "events", "events", append(h.listArgs(), h.geo.args(calendard.PostTypeEvent)...), h.syncRecords(r))
	}
	q, err := h.listFilter(r)
	if err != nil {
		return nil, err
	}
	if icalAsked(r) {
		return h.listICal(r, q)
	}
	tok := h.sync.listToken(r, "events") // before loading: the list reflects every change up to it
	gen := h.generation()                // before loading: records rendered now are at least this new
	events, total, err := h.findEvents(r, r.Site, q.f)
	if err != nil {
		return nil, err
	}
	if len(events) == 0 && q.page > 1 {
		return nil, &calendard.Error{Code: "event-archive-page-not-found", Message: calendard.MsgEventArchivePageNotFound, Status: 404}
	}
	restURL := h.listURL(r, q)
	body := phpjson.NewObject()
	list := make([]any, 0, len(events))
	for _, e := range events {
		list = append(list, h.listEventRecord(r, e, gen))
	}
	body.Set("events", list)
	body.Set("rest_url", restURL)
	return withToken(pagedList(body, restURL, q.page, q.perPage, total), tok), nil
}

// syncRecords renders the list records of the events the caller can see among ids, as the list
// does with every status it may list (trash excluded) and no date window.
func (h *eventsHandler) syncRecords(r *handlers.Request) func(ids []int64) (map[int64]any, error) {
	return func(ids []int64) (map[int64]any, error) {
		f := calendard.EventFilter{Include: ids, OrderByPostDate: true, Limit: len(ids)}
		if !r.User.Can(calendard.CapsOf(calendard.PostTypeEvent).Edit) {
			f.Statuses = []string{"publish"}
		}
		if h.strictReads && !publishedOnly(f.Statuses) {
			f.ReadableBy = calendard.ReadRuleFor(r.User, calendard.PostTypeEvent, "trash")
		}
		gen := h.generation()
		events, _, err := h.events.FindEvents(r.Context(), r.Site, f)
		if err != nil {
			return nil, err
		}
		out := make(map[int64]any, len(events))
		for _, e := range events {
			out[e.ID] = h.listEventRecord(r, e, gen)
		}
		return out, nil
	}
}

// listFilter reads the list's parameters as Archive_Event::get does: paging, the date window
// (localized in strict mode, day-rounded otherwise), include, search, terms, linked posts, geoloc,
// featured, parent and statuses.
func (h *eventsHandler) listFilter(r *handlers.Request) (*eventList, error) {
	site := r.Site
	q := &eventList{}
	page := php.Int(r.Value("page"))
	if page < 1 {
		page = 1
	}
	perPage := int64(site.PerPage)
	if v := r.Value("per_page"); !php.Empty(v) {
		perPage = php.Int(v)
	}

	f := calendard.EventFilter{Limit: int(perPage), Offset: handlers.RowsBefore(page, perPage)}
	include, hasInclude := r.Param("include")
	if hasInclude && !php.Empty(include) {
		for _, it := range php.ListToArray(include) {
			f.Include = append(f.Include, php.Int(it))
		}
		f.OrderByPostDate = true
	}
	urlStart, urlEnd := listDates(r, &f)

	var search string
	v, hasSearch := r.Param("search")
	if hasSearch {
		search, _ = php.String(v)
		if search != "" {
			f.Search = calendard.ParseSearch(search)
			f.SearchAnonymous = !r.User.LoggedIn()
		}
	}
	if err := h.placeAndTermFilters(r, &f); err != nil {
		return nil, err
	}
	featured, hasFeatured := r.Param("featured")
	if hasFeatured {
		b := handlers.RestBool(featured)
		f.Featured = &b
	}
	if v, ok := r.Param("post_parent"); ok {
		n := php.Int(v)
		f.PostParent = &n
	}
	var err error
	if f.ModifiedAfter, f.ModifiedBefore, err = modifiedBounds(r); err != nil {
		return nil, err
	}

	var statusParam []string
	if v, ok := r.Param("status"); ok {
		statusParam = statusList(r, calendard.PostTypeEvent, v)
		f.Statuses = statusParam
	} else if !r.User.Can(calendard.CapsOf(calendard.PostTypeEvent).Edit) {
		f.Statuses = []string{"publish"}
	}

	if h.strictReads && !publishedOnly(f.Statuses) {
		// Singles refuse trashed events to everyone, and other events as read_post decides.
		f.ReadableBy = calendard.ReadRuleFor(r.User, calendard.PostTypeEvent, "trash")
	}
	q.f, q.page, q.perPage, q.urlStart, q.urlEnd = f, page, perPage, urlStart, urlEnd
	q.search, q.hasSearch, q.statusParam, q.featured, q.hasFeatured = search, hasSearch, statusParam, featured, hasFeatured
	return q, nil
}

// listDates sets the date window of an events list (f.Include already parsed) and returns the
// start_date and end_date its rest_url carries. Dates are localized for strict mode and
// day-rounded in the default inclusive mode.
func listDates(r *handlers.Request, f *calendard.EventFilter) (urlStart, urlEnd *string) {
	site := r.Site
	strict := false
	if v, ok := r.Param("strict_dates"); ok {
		s, _ := php.String(v)
		strict = strictDates(s)
	}
	// bounded returns a date parameter as the plugin compares it: localized to the site zone in strict
	// mode, otherwise rounded to the start (begin) or end of its UTC calendar day.
	bounded := func(name string, begin bool) *string {
		v, ok := r.Param(name)
		if !ok {
			return nil
		}
		s, _ := php.String(v)
		var out string
		switch {
		case strict:
			v, ok := localizeDate(s, site, r.Now)
			if !ok {
				return nil
			}
			out = v
		case begin:
			out = beginningOfDay(s, site, r.Now)
		default:
			out = endOfDay(s, site, r.Now)
		}
		return &out
	}
	relative := false
	for _, n := range []string{"starts_before", "starts_after", "ends_before", "ends_after"} {
		if _, ok := r.Param(n); ok {
			relative = true
		}
	}
	startsBefore := bounded("starts_before", false)
	startsAfter := bounded("starts_after", false)
	endsBefore := bounded("ends_before", false)
	endsAfter := bounded("ends_after", false)
	startDate := bounded("start_date", true)
	endDate := bounded("end_date", false)

	if relative {
		if !r.QueryHas("start_date") {
			startDate = nil
		}
		if !r.QueryHas("end_date") {
			endDate = nil
		}
	}
	urlStart, urlEnd = startDate, endDate
	if f.Include != nil {
		// Included posts void the caller's dates; the default window is re-applied unrounded.
		urlStart, urlEnd = strPtr(defaultStartDate(site, r.Now)), strPtr(defaultEndDate(r.Now))
		if relative {
			if !r.QueryHas("start_date") {
				urlStart = nil
			}
			if !r.QueryHas("end_date") {
				urlEnd = nil
			}
			startDate, endDate = nil, nil
		} else {
			startDate, endDate = urlStart, urlEnd
		}
	}
	f.StartOnOrAfter, f.EndOnOrBefore = startDate, endDate
	f.StartsBefore, f.StartsAfter, f.EndsBefore, f.EndsAfter = startsBefore, startsAfter, endsBefore, endsAfter
	return urlStart, urlEnd
}

// placeAndTermFilters sets the categories, tags, venues and organizers an events list is filtered
// by, the venues geoloc selects (Events Calendar Pro, when geo filters are on) included.
func (h *eventsHandler) placeAndTermFilters(r *handlers.Request, f *calendard.EventFilter) error {
	var err error
	if f.CategoryIDs, err = h.termFilter(r, "categories", calendard.TaxonomyCategory); err != nil {
		return err
	}
	if f.TagIDs, err = h.termFilter(r, "tags", calendard.TaxonomyTag); err != nil {
		return err
	}
	f.VenueIDs = idList(r.Value("venue"))
	f.OrganizerIDs = idList(r.Value("organizer"))
	if near, err := h.geo.venues(r, false); err != nil {
		return err
	} else if near != nil || (h.geo.served() && restBoolParam(r, "geoloc")) {
		f.VenueIDs = narrowIDs(f.VenueIDs, near)
	}
	return nil
}

// listURL is the list's rest_url: the plugin's supported query vars in their fixed order, raw
// values, then venue, organizer and featured as the plugin appends them.
func (h *eventsHandler) listURL(r *handlers.Request, q *eventList) string {
	page, perPage, urlStart, urlEnd, f := q.page, q.perPage, q.urlStart, q.urlEnd, q.f
	search, hasSearch, statusParam, featured, hasFeatured := q.search, q.hasSearch, q.statusParam, q.featured, q.hasFeatured
	startsBefore, startsAfter, endsBefore, endsAfter := f.StartsBefore, f.StartsAfter, f.EndsBefore, f.EndsAfter
	params := []calendard.KV{{Key: "page", Value: page}, {Key: "per_page", Value: perPage}}
	if urlStart != nil {
		params = append(params, calendard.KV{Key: "start_date", Value: *urlStart})
	}
	if urlEnd != nil {
		params = append(params, calendard.KV{Key: "end_date", Value: *urlEnd})
	}
	if hasSearch {
		params = append(params, calendard.KV{Key: "search", Value: search})
	}
	if g, ok := r.Param("geoloc"); ok && handlers.RestBool(g) {
		lat, _ := r.Param("geoloc_lat")
		lng, _ := r.Param("geoloc_lng")
		params = append(params, calendard.KV{Key: "geoloc", Value: int64(1)},
			calendard.KV{Key: "geoloc_lat", Value: orEmpty(lat)}, calendard.KV{Key: "geoloc_lng", Value: orEmpty(lng)})
	}
	status := "publish"
	if f.Statuses == nil {
		status = "any"
	} else if statusParam != nil {
		status = strings.Join(statusParam, ",")
	}
	params = append(params, calendard.KV{Key: "status", Value: status})
	if f.PostParent != nil {
		params = append(params, calendard.KV{Key: "post_parent", Value: *f.PostParent})
	}
	if f.Include != nil {
		// The plugin joins array values with commas before building the URL.
		ids := make([]string, len(f.Include))
		for i, id := range f.Include {
			ids[i] = handlers.Itoa(id)
		}
		params = append(params, calendard.KV{Key: "include", Value: strings.Join(ids, ",")})
	}
	for _, b := range []struct {
		name string
		v    *string
	}{{"starts_before", startsBefore}, {"starts_after", startsAfter}, {"ends_before", endsBefore}, {"ends_after", endsAfter}} {
		if b.v != nil {
			params = append(params, calendard.KV{Key: b.name, Value: *b.v})
		}
	}
	if t, ok := r.Param("ticketed"); ok && handlers.RestBool(t) {
		params = append(params, calendard.KV{Key: "ticketed", Value: true})
	}
	restURL := handlers.AddQueryArg(r.RestURL("events/"), params)
	var extra []calendard.KV
	if v, ok := r.Param("venue"); ok {
		extra = append(extra, calendard.KV{Key: "venue", Value: toList(v)})
	}
	if v, ok := r.Param("organizer"); ok {
		extra = append(extra, calendard.KV{Key: "organizer", Value: toList(v)})
	}
	if hasFeatured {
		extra = append(extra, calendard.KV{Key: "featured", Value: handlers.RestBool(featured)})
	}
	extra = append(extra, modifiedURLArgs(r)...)
	if len(extra) > 0 {
		restURL = handlers.AddQueryArg(restURL, extra)
	}
	return restURL
}

// publishedOnly reports a list limited to published posts, which every rule allows: it needs no
// strict-reads filter (and stays with the event index).
func publishedOnly(statuses []string) bool {
	return len(statuses) == 1 && statuses[0] == "publish"
}

// pagedList finishes the events, venues and organizers list envelope: next/previous links while
// the neighbouring page can hold records, total and total_pages, and the X-TEC headers.
func pagedList(body *phpjson.Object, restURL string, page, perPage int64, total int) *handlers.Response {
	if handlers.RowsBefore(page+1, perPage) < total {
		body.Set("next_rest_url", pageURL(restURL, page+1))
	}
	if page > 1 && handlers.RowsBefore(page-1, perPage) < total {
		body.Set("previous_rest_url", pageURL(restURL, page-1))
	}
	pages := totalPages(total, perPage)
	body.Set("total", total)
	body.Set("total_pages", pages)
	return withTotals(handlers.Ok(body), total, pages)
}

// pageURL is restURL pointing at page n; page 1 is the URL without a page argument.
func pageURL(restURL string, n int64) string {
	u := handlers.RemoveQueryArg(restURL, "page")
	if n == 1 {
		return u
	}
	return handlers.AddQueryArg(u, []calendard.KV{{Key: "page", Value: n}})
}

// withTotals adds the list headers every collection answers with.
func withTotals(resp *handlers.Response, total int, pages int64) *handlers.Response {
	return resp.Header("X-TEC-Total", handlers.Itoa(int64(total))).Header("X-TEC-TotalPages", handlers.Itoa(pages))
}

func totalPages(total int, perPage int64) int64 {
	if total <= 0 || perPage <= 0 {
		return 0
	}
	return int64(math.Ceil(float64(total) / float64(perPage)))
}

func strPtr(s string) *string { return &s }

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// toList is Tribe__Utils__Array::to_list: arrays joined with ",".
func toList(v any) any {
	if php.IsArray(v) {
		var parts []string
		for _, e := range php.List(v) {
			s, _ := php.String(e)
			parts = append(parts, s)
		}
		return strings.Join(parts, ",")
	}
	return v
}

// idList turns a validated ID list parameter into IDs (nil when absent or empty).
func idList(v any) []int64 {
	if php.Empty(v) {
		return nil
	}
	var out []int64
	for _, it := range php.ListToArray(v) {
		out = append(out, php.Int(it))
	}
	return out
}

// termFilter resolves a categories/tags parameter to term IDs (with descendants for categories).
// Items that resolve to nothing still narrow the query to nothing, as in the plugin.
func (h *eventsHandler) termFilter(r *handlers.Request, param, taxonomy string) ([]int64, error) {
	v, ok := r.Param(param)
	if !ok || php.Empty(v) {
		return nil, nil
	}
	ids := []int64{}
	items := php.ListToArray(v)
	if taxonomy == calendard.TaxonomyTag && len(items) > 1 && r.Site.UseCustomTables {
		// Only the first tag of a list filters ("11,12" answers like "11") where the plugin reads its
		// custom tables: WP_Query sets the tag_id query var to the first tag of the tax query, and
		// the custom tables' query, run again from those query vars, ANDs it with the list. On
		// postmeta the one WP_Query matches any tag of the list.
		items = items[:1]
	}
	for _, it := range items {
		t, err := h.termBy(r, it, taxonomy)
		if err != nil {
			return nil, err
		}
		if t != nil {
			ids = append(ids, t.ID)
		}
	}
	if taxonomy == calendard.TaxonomyCategory && len(ids) > 0 {
		idx, err := h.taxonomies.Get(r, taxonomy)
		if err != nil {
			return nil, err
		}
		ids = idx.Tree.WithDescendants(ids)
	}
	return ids, nil
}
