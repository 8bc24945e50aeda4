package tribe

import (
	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
)

// Declared parameters of the plugin's write endpoints and of the linked-post and term archives, as
// the reference registers them (the namespace index and /doc show them; validation uses them).

// arg builds a declared parameter.
func arg(name, typ, desc string) *handlers.Arg {
	return &handlers.Arg{Name: name, Type: typ, Description: desc}
}

// nullDefault marks a parameter whose declared default is null.
func nullDefault(a *handlers.Arg) *handlers.Arg { a.HasDefault = true; a.Default = nil; return a }

func withItems(a *handlers.Arg) *handlers.Arg { a.ItemsType = "integer"; return a }

// eventWriteArgs are Single_Event's create/update parameters; create requires title and dates.
func (l *lookups) eventWriteArgs(create bool) []*handlers.Arg {
	req := func(a *handlers.Arg) *handlers.Arg {
		if create {
			a.Required = true
		}
		return a
	}
	allDay := arg("all_day", "boolean", "Whether the event lasts the whole day or not")
	allDay.HasDefault, allDay.Default = true, func(*handlers.Request) any { return false }
	v := checked
	return []*handlers.Arg{
		v(arg("author", "integer", "The event author ID"), l.validUserID),
		v(arg("date", "string", "The event publication date"), validTime),
		v(arg("date_utc", "string", "The event publication date (UTC time zone)"), validTime),
		v(req(arg("title", "string", "The event title")), validString),
		v(arg("description", "string", "The event description"), validString),
		v(arg("slug", "string", "The event slug"), validString),
		v(arg("excerpt", "string", "The event excerpt"), validString),
		v(arg("status", "string", "The event post status"), validPostStatus),
		v(arg("timezone", "string", "The event time zone"), validTimezoneOrEmpty),
		allDay,
		v(req(arg("start_date", "string", "The event start date and time")), validTime),
		v(req(arg("end_date", "string", "The event end date and time")), validTime),
		v(arg("image", "string", "The event featured image ID or URL"), l.validImage),
		arg("cost", "", "The event cost"),
		v(nullDefault(arg("website", "", "The event website URL")), validURLOrEmpty),
		arg("show_map", "boolean", "Whether the event should show a map or not"),
		arg("show_map_link", "boolean", "Whether the event should show a map link or not"),
		arg("hide_from_listings", "boolean", "Whether events should be hidden in the calendar view or not"),
		arg("sticky", "boolean", "Whether the event should be sticky in the calendar view or not"),
		arg("featured", "boolean", "Whether the event should be featured on the site or not"),
		withItems(nullDefault(arg("categories", "", "The event category ID or name"))),
		withItems(nullDefault(arg("tags", "", "The event tag ID or name"))),
		v(withItems(nullDefault(arg("venue", "", "The event venue IDs or data"))), l.validLinkedOrEmpty(calendard.PostTypeVenue)),
		v(withItems(nullDefault(arg("organizer", "", "The event organizer IDs or data"))), l.validLinkedOrEmpty(calendard.PostTypeOrganizer)),
	}
}

// eventIDArgs are the path parameters of /events/{id}.
func eventIDArgs() []*handlers.Arg {
	return []*handlers.Arg{
		{Name: "id", Type: "integer", Required: true, In: "path", Description: "the event post ID"},
		{Name: "password", Type: "string", Validate: validString, Description: "The event password"},
	}
}

// eventUpdateArgs are the parameters of POST/PUT/PATCH /events/{id}.
func (l *lookups) eventUpdateArgs() []*handlers.Arg {
	return append(eventIDArgs(), l.eventWriteArgs(false)...)
}

// eventSlugUpdateArgs are the parameters of POST/PUT/PATCH /events/by-slug/{slug}: the slug comes first
// (PHP array union), the other write parameters keep their order.
func (l *lookups) eventSlugUpdateArgs() []*handlers.Arg {
	out := []*handlers.Arg{arg("slug", "string", "The event slug")}
	for _, a := range l.eventWriteArgs(false) {
		if a.Name != "slug" {
			out = append(out, a)
		}
	}
	return out
}

// venueWriteArgs are Single_Venue's create/update parameters with their validate_callbacks.
func (l *lookups) venueWriteArgs(create bool) []*handlers.Arg {
	name := checked(arg("venue", "string", "The venue name"), validString)
	if create {
		name.Required = true
	}
	s := func(n, d string, fn func(*handlers.Request, any) error) *handlers.Arg {
		return checked(nullDefault(arg(n, "string", d)), fn)
	}
	return []*handlers.Arg{
		checked(arg("author", "integer", "The venue author ID"), l.validUserID),
		checked(arg("date", "string", "The venue publication date"), validTime),
		checked(arg("date_utc", "string", "The venue publication date (UTC time zone)"), validTime),
		name,
		s("description", "The venue description", validStringOrEmpty),
		checked(arg("status", "string", "The venue post status"), validPostStatus),
		s("show_map", "Whether events linked to the venue should show a map or not", nil),
		s("show_map_link", "Whether events linked to the venue should show a map link or not", nil),
		s("address", "The venue address", validStringOrEmpty),
		s("city", "The venue city", validStringOrEmpty),
		s("country", "The venue country", validStringOrEmpty),
		s("province", "The venue province", validStringOrEmpty),
		s("state", "The venue state", validStringOrEmpty),
		s("zip", "The venue ZIP code", validStringOrEmpty),
		s("phone", "The venue phone number", validStringOrEmpty),
		s("stateprovince", "The venue state and province", validStringOrEmpty),
		s("website", "The venue website URL", validURLOrEmpty),
		s("image", "The organizer featured image ID or URL", l.validImageOrEmpty),
	}
}

// organizerWriteArgs are Single_Organizer's create/update parameters (all declared with null defaults).
func (l *lookups) organizerWriteArgs(create bool) []*handlers.Arg {
	a := func(n, typ, d string, fn func(*handlers.Request, any) error) *handlers.Arg {
		return checked(nullDefault(arg(n, typ, d)), fn)
	}
	name := a("organizer", "string", "The organizer name", validString)
	if create {
		name.Required = true
	}
	return []*handlers.Arg{
		a("author", "integer", "The organizer author ID", l.validUserID),
		a("date", "string", "The organizer publication date", validTime),
		a("date_utc", "string", "The organizer publication date (UTC time zone)", validTime),
		name,
		a("description", "string", "The organizer description", validStringOrEmpty),
		a("status", "string", "The organizer post status", validPostStatus),
		a("phone", "string", "The organizer phone number", validStringOrEmpty),
		a("website", "string", "The organizer website", validURLOrEmpty),
		a("email", "string", "The organizer e-mail address", validStringOrEmpty),
		a("image", "string", "The organizer featured image ID or URL", l.validImageOrEmpty),
	}
}

// checked sets a parameter's validate_callback.
func checked(a *handlers.Arg, fn func(*handlers.Request, any) error) *handlers.Arg {
	a.Validate = fn
	return a
}

// linkedIDArg is the path ID of /venues/{id} and /organizers/{id} (is_venue_id / is_organizer_id).
func (l *lookups) linkedIDArg(kind string) *handlers.Arg {
	return &handlers.Arg{Name: "id", Type: "integer", Required: true, In: "path", Description: "the " + kind + " post ID",
		Validate: l.validLinkedID("tribe_" + kind)}
}

// linkedSlugArg is the path slug of the linked-post by-slug routes.
func (l *lookups) linkedSlugArg(kind, postType string) *handlers.Arg {
	return &handlers.Arg{Name: "slug", Type: "string", Required: true, In: "path", Description: "the " + kind + " post name",
		Validate: l.validSlugOf(postType)}
}

// termWriteArgs are the create/update parameters of categories (with parent) and tags. Text
// parameters must be non-empty strings (is_string); parent must name an existing category
// (is_event_category, so 0 is refused). Tags declare no parent: the core controller refuses one.
func (l *lookups) termWriteArgs(kind string, create, hierarchical bool) []*handlers.Arg {
	text := func(name, desc string) *handlers.Arg {
		a := arg(name, "string", desc)
		a.Validate = validString
		return a
	}
	name := text("name", "The event "+kind+" name")
	if create {
		name.Required = true
	}
	out := []*handlers.Arg{name,
		text("description", "The event "+kind+" description"),
		text("slug", "The event "+kind+" slug"),
	}
	if hierarchical {
		// The reference's parent parameter carries the slug's description.
		parent := arg("parent", "integer", "The event "+kind+" slug")
		parent.Validate = l.validTermList(calendard.TaxonomyCategory)
		out = append(out, parent)
	}
	return out
}

// termIDArg is the path ID of /categories/{id} and /tags/{id}.
func termIDArg(kind string) *handlers.Arg {
	return &handlers.Arg{Name: "id", Type: "integer", Required: true, In: "path", Description: "the event " + kind + " term ID"}
}
