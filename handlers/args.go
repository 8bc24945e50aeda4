package handlers

// Declared parameters of the plugin's write endpoints and of the linked-post and term archives, as
// the reference registers them (the namespace index and /doc show them; validation uses them).

// arg builds a declared parameter.
func arg(name, typ, desc string) *Arg { return &Arg{Name: name, Type: typ, Description: desc} }

// nullDefault marks a parameter whose declared default is null.
func nullDefault(a *Arg) *Arg { a.HasDefault = true; a.Default = nil; return a }

func required(a *Arg) *Arg { a.Required = true; return a }

func withItems(a *Arg) *Arg { a.ItemsType = "integer"; return a }

// eventWriteArgs are Single_Event's create/update parameters; create requires title and dates.
func eventWriteArgs(create bool) []*Arg {
	req := func(a *Arg) *Arg {
		if create {
			a.Required = true
		}
		return a
	}
	allDay := arg("all_day", "boolean", "Whether the event lasts the whole day or not")
	allDay.HasDefault, allDay.Default = true, func(*Request) any { return false }
	return []*Arg{
		arg("author", "integer", "The event author ID"),
		arg("date", "string", "The event publication date"),
		arg("date_utc", "string", "The event publication date (UTC time zone)"),
		req(arg("title", "string", "The event title")),
		arg("description", "string", "The event description"),
		arg("slug", "string", "The event slug"),
		arg("excerpt", "string", "The event excerpt"),
		arg("status", "string", "The event post status"),
		arg("timezone", "string", "The event time zone"),
		allDay,
		req(arg("start_date", "string", "The event start date and time")),
		req(arg("end_date", "string", "The event end date and time")),
		arg("image", "string", "The event featured image ID or URL"),
		arg("cost", "", "The event cost"),
		nullDefault(arg("website", "", "The event website URL")),
		arg("show_map", "boolean", "Whether the event should show a map or not"),
		arg("show_map_link", "boolean", "Whether the event should show a map link or not"),
		arg("hide_from_listings", "boolean", "Whether events should be hidden in the calendar view or not"),
		arg("sticky", "boolean", "Whether the event should be sticky in the calendar view or not"),
		arg("featured", "boolean", "Whether the event should be featured on the site or not"),
		withItems(nullDefault(arg("categories", "", "The event category ID or name"))),
		withItems(nullDefault(arg("tags", "", "The event tag ID or name"))),
		withItems(nullDefault(arg("venue", "", "The event venue IDs or data"))),
		withItems(nullDefault(arg("organizer", "", "The event organizer IDs or data"))),
	}
}

// eventIDArgs are the path parameters of /events/{id}.
func eventIDArgs() []*Arg {
	return []*Arg{
		{Name: "id", Type: "integer", Required: true, In: "path", Description: "the event post ID"},
		{Name: "password", Type: "string", Validate: validString, Description: "The event password"},
	}
}

// eventUpdateArgs are the parameters of POST/PUT/PATCH /events/{id}.
func eventUpdateArgs() []*Arg { return append(eventIDArgs(), eventWriteArgs(false)...) }

// eventSlugUpdateArgs are the parameters of POST/PUT/PATCH /events/by-slug/{slug}: the slug comes first
// (PHP array union), the other write parameters keep their order.
func eventSlugUpdateArgs() []*Arg {
	out := []*Arg{arg("slug", "string", "The event slug")}
	for _, a := range eventWriteArgs(false) {
		if a.Name != "slug" {
			out = append(out, a)
		}
	}
	return out
}

// venueWriteArgs are Single_Venue's create/update parameters.
func venueWriteArgs(create bool) []*Arg {
	name := arg("venue", "string", "The venue name")
	if create {
		name.Required = true
	}
	s := func(n, d string) *Arg { return nullDefault(arg(n, "string", d)) }
	return []*Arg{
		arg("author", "integer", "The venue author ID"),
		arg("date", "string", "The venue publication date"),
		arg("date_utc", "string", "The venue publication date (UTC time zone)"),
		name,
		s("description", "The venue description"),
		arg("status", "string", "The venue post status"),
		s("show_map", "Whether events linked to the venue should show a map or not"),
		s("show_map_link", "Whether events linked to the venue should show a map link or not"),
		s("address", "The venue address"),
		s("city", "The venue city"),
		s("country", "The venue country"),
		s("province", "The venue province"),
		s("state", "The venue state"),
		s("zip", "The venue ZIP code"),
		s("phone", "The venue phone number"),
		s("stateprovince", "The venue state and province"),
		s("website", "The venue website URL"),
		s("image", "The organizer featured image ID or URL"),
	}
}

// organizerWriteArgs are Single_Organizer's create/update parameters (all declared with null defaults).
func organizerWriteArgs(create bool) []*Arg {
	name := nullDefault(arg("organizer", "string", "The organizer name"))
	if create {
		name.Required = true
	}
	return []*Arg{
		nullDefault(arg("author", "integer", "The organizer author ID")),
		nullDefault(arg("date", "string", "The organizer publication date")),
		nullDefault(arg("date_utc", "string", "The organizer publication date (UTC time zone)")),
		name,
		nullDefault(arg("description", "string", "The organizer description")),
		nullDefault(arg("status", "string", "The organizer post status")),
		nullDefault(arg("phone", "string", "The organizer phone number")),
		nullDefault(arg("website", "string", "The organizer website")),
		nullDefault(arg("email", "string", "The organizer e-mail address")),
		nullDefault(arg("image", "string", "The organizer featured image ID or URL")),
	}
}

// linkedIDArg is the path ID of /venues/{id} and /organizers/{id}.
func linkedIDArg(kind string) *Arg {
	return &Arg{Name: "id", Type: "integer", Required: true, In: "path", Description: "the " + kind + " post ID"}
}

// linkedSlugArg is the path slug of the linked-post by-slug routes.
func linkedSlugArg(kind, postType string) *Arg {
	return &Arg{Name: "slug", Type: "string", Required: true, In: "path", Description: "the " + kind + " post name",
		Validate: validSlugOf(postType)}
}

// termWriteArgs are the create/update parameters of categories (with parent) and tags.
func termWriteArgs(kind string, create, hierarchical bool) []*Arg {
	name := arg("name", "string", "The event "+kind+" name")
	if create {
		name.Required = true
	}
	out := []*Arg{name,
		arg("description", "string", "The event "+kind+" description"),
		arg("slug", "string", "The event "+kind+" slug"),
	}
	if hierarchical {
		// The reference's parent parameter carries the slug's description.
		out = append(out, arg("parent", "integer", "The event "+kind+" slug"))
	}
	return out
}

// termIDArg is the path ID of /categories/{id} and /tags/{id}.
func termIDArg(kind string) *Arg {
	return &Arg{Name: "id", Type: "integer", Required: true, In: "path", Description: "the event " + kind + " term ID"}
}
