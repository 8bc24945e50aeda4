package tribe

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/calendard/calendard/handlers"

	"github.com/calendard/calendard"

	"github.com/calendard/calendard/internal/phpjson"
)

// geoFilter is the geoloc filters' service and settings (Options.Geo, Options.GeoRadiusKM).
type geoFilter struct {
	// geo finds venues by coordinates; the filters are served only when on and with a geo service.
	geo      calendard.GeoService
	on       bool
	radiusKM float64
	// ranked: orderby=relevance is served (Services.Ranked), which the events list declares.
	ranked bool
}

// served reports whether the geoloc filters are served.
func (p *geoFilter) served() bool { return p.on && p.geo != nil }

// args are the extension parameters of a list of postType (only when their feature is on):
// orderby on events, geoloc_radius on events and venues, and on venues the geoloc parameters events
// already declare. Organizers have none.
func (p *geoFilter) args(postType string) []*handlers.Arg {
	var args []*handlers.Arg
	venues := postType == calendard.PostTypeVenue
	if postType == calendard.PostTypeOrganizer {
		return nil
	}
	if (p.ranked || p.on) && !venues {
		// Not validated: the plugin ignores orderby on this route, whatever its value, and so do
		// the values that are not these two.
		args = append(args, &handlers.Arg{Name: "orderby", Type: "string",
			Description: "calendard extension: relevance orders a search by rank (best first, with Meilisearch); distance orders a geoloc_lat/geoloc_lng query by the venue's distance (nearest first); any other value is ignored, as the plugin does"})
	}
	if !p.on {
		return args
	}
	if venues {
		args = append(args,
			&handlers.Arg{Name: "geoloc", Type: "boolean", Description: "calendard extension (as Events Calendar Pro for events): only venues with geolocation data"},
			&handlers.Arg{Name: "geoloc_lat", Format: "double", SwaggerType: "number", Description: "calendard extension: venues near this latitude, must also provide geoloc_lng"},
			&handlers.Arg{Name: "geoloc_lng", Format: "double", SwaggerType: "number", Description: "calendard extension: venues near this longitude, must also provide geoloc_lat"})
	}
	return append(args, &handlers.Arg{Name: "geoloc_radius", Format: "double", SwaggerType: "number",
		Description: "calendard extension: with geoloc_lat and geoloc_lng, the radius in km (default " + strconv.FormatFloat(p.radiusKM, 'f', -1, 64) + ")"})
}

// venues resolves the geoloc parameters to the venues they select: nil when geo filters are off
// or geoloc is not true; the venues with coordinates, or those within the radius of
// geoloc_lat/geoloc_lng (nearest first). One of the two coordinates without the other, or a value
// that is not a number, is a 400.
//
// Without geoloc=1, Events Calendar Pro ignores geoloc_lat and geoloc_lng on events
// (Geo_Loc::setup_geoloc_in_query returns at once for a REST query without tribe_geoloc), and so
// does calendard. The parameters only calendard has (geoloc_radius; on venues all of them) are
// refused instead where they cannot apply: 400 rest_invalid_param naming what is missing, not a
// filter silently dropped.
func (p *geoFilter) venues(r *handlers.Request, venues bool) ([]int64, error) {
	if !p.served() {
		return nil, nil
	}
	g, ok := r.Param("geoloc")
	on := ok && handlers.RestBool(g)
	text := func(name string) (string, bool) {
		v, ok := r.Param(name)
		if !ok {
			return "", false
		}
		s, _ := v.(string)
		if f, isNum := v.(float64); isNum {
			s = strconv.FormatFloat(f, 'f', -1, 64)
		}
		s = strings.TrimSpace(s)
		return s, s != ""
	}
	invalid := phpjson.NewObject()
	details := phpjson.NewObject()
	bad := func(name, msg string) {
		invalid.Set(name, msg)
		details.Set(name, phpjson.Obj("code", "rest_invalid_param", "message", msg, "data", nil))
	}
	number := func(name string, limit float64) float64 {
		s, _ := text(name)
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < -limit || f > limit {
			bad(name, name+" is not a number from "+strconv.FormatFloat(-limit, 'f', -1, 64)+" to "+strconv.FormatFloat(limit, 'f', -1, 64)+".")
		}
		return f
	}
	_, hasLat := text("geoloc_lat")
	_, hasLng := text("geoloc_lng")
	_, hasRadius := text("geoloc_radius")
	if !on {
		if venues {
			if hasLat {
				bad("geoloc_lat", msgNeedsGeoloc("geoloc_lat"))
			}
			if hasLng {
				bad("geoloc_lng", msgNeedsGeoloc("geoloc_lng"))
			}
		}
		if hasRadius {
			bad("geoloc_radius", "geoloc_radius applies only with geoloc=1, geoloc_lat and geoloc_lng.")
		}
		if invalid.Len() > 0 {
			return nil, handlers.InvalidParams(invalid, details)
		}
		return nil, nil
	}
	switch {
	case hasLat && !hasLng:
		bad("geoloc_lng", "geoloc_lng is required with geoloc_lat.")
	case hasLng && !hasLat:
		bad("geoloc_lat", "geoloc_lat is required with geoloc_lng.")
	}
	if invalid.Len() > 0 {
		return nil, handlers.InvalidParams(invalid, details)
	}
	if !hasLat {
		if hasRadius {
			return nil, handlers.InvalidParams(phpjson.Obj("geoloc_radius", msgRadiusAlone), phpjson.Obj("geoloc_radius",
				phpjson.Obj("code", "rest_invalid_param", "message", msgRadiusAlone, "data", nil)))
		}
		return p.geo.VenuesWithCoordinates(r.Context())
	}
	lat := number("geoloc_lat", 90)
	lng := number("geoloc_lng", 180)
	radius := p.radiusKM
	if _, ok := text("geoloc_radius"); ok {
		radius = number("geoloc_radius", 20040)
		if radius <= 0 && invalid.Len() == 0 {
			bad("geoloc_radius", "geoloc_radius must be greater than 0.")
		}
	}
	if invalid.Len() > 0 {
		return nil, handlers.InvalidParams(invalid, details)
	}
	return p.geo.VenuesNear(r.Context(), lat, lng, radius)
}

const msgRadiusAlone = "geoloc_radius applies only with geoloc_lat and geoloc_lng."

func msgNeedsGeoloc(name string) string {
	return name + " filters venues only with geoloc=1 (and geoloc_lat with geoloc_lng)."
}

// narrowIDs intersects an ID filter (nil: none) with ids, keeping the order of ids (the geo
// filter's nearest first).
func narrowIDs(filter, ids []int64) []int64 {
	if ids == nil {
		ids = []int64{}
	}
	if filter == nil {
		return ids
	}
	out := []int64{}
	for _, id := range ids {
		if slices.Contains(filter, id) {
			out = append(out, id)
		}
	}
	return out
}

// restBoolParam reports a parameter that is present and true.
func restBoolParam(r *handlers.Request, name string) bool {
	v, ok := r.Param(name)
	return ok && handlers.RestBool(v)
}

// findEvents lists events, by relevance or distance when the request asks for it and the service
// can (near: the geo filter's venues, nearest first).
func (h *eventsHandler) findEvents(r *handlers.Request, site *calendard.Site, f calendard.EventFilter) ([]*calendard.Event, int, error) {
	if v, ok := r.Param("orderby"); ok && v == "distance" && h.geo.on {
		if _, hasLat := r.Param("geoloc_lat"); hasLat && restBoolParam(r, "geoloc") && f.VenueIDs != nil {
			return h.byDistance(r, site, f)
		}
	}
	if v, ok := r.Param("orderby"); ok && v == "relevance" && len(f.Search) > 0 {
		if h.ranked != nil {
			return h.ranked.FindEventsByRelevance(r.Context(), site, f)
		}
	}
	return h.events.FindEvents(r.Context(), site, f)
}

// byDistance lists the events matching f (whose VenueIDs the geo filter set, nearest first) ordered
// by their venue's distance, then in the plugin's order; totals and pages as usual.
func (h *eventsHandler) byDistance(r *handlers.Request, site *calendard.Site, f calendard.EventFilter) ([]*calendard.Event, int, error) {
	rank := make(map[int64]int, len(f.VenueIDs))
	for i, id := range f.VenueIDs {
		if _, seen := rank[id]; !seen {
			rank[id] = i
		}
	}
	g := f
	g.Offset, g.Limit = 0, 1<<31-1
	all, total, err := h.events.FindEvents(r.Context(), site, g)
	if err != nil {
		return nil, 0, err
	}
	nearest := func(e *calendard.Event) int {
		best := len(rank)
		for _, v := range e.Meta["_EventVenueID"] {
			id, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if i, ok := rank[id]; ok && i < best {
				best = i
			}
		}
		return best
	}
	slices.SortStableFunc(all, func(a, b *calendard.Event) int { return nearest(a) - nearest(b) })
	from := min(f.Offset, len(all))
	to := min(from+f.Limit, len(all))
	return all[from:to], total, nil
}
