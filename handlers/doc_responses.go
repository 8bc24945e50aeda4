package handlers

// docResponse is one documented response of an operation in /doc.
type docResponse struct {
	code, description string
	// schema names the components schema of the JSON body, "" for none.
	schema string
	// listTitle, when set, documents the body as an array of schema titled so (the archive's list key).
	listTitle string
}

// docOperations are the responses each endpoint's get_documentation() declares, keyed by the route's
// registered path and the lower-case method. Everything else in /doc (paths, methods, parameters,
// request bodies) is derived from the route table. The texts are the plugin's, typos and
// inconsistencies included ("with the specified event does not exist", organizers lacking a 200 on
// post, terms lacking a 403 on get).
var docOperations = map[string]map[string][]docResponse{
	"/doc": {
		"get": {
			{"200", "Returns the documentation for The Events Calendar REST API in Swagger consumable format.", "", ""},
		},
	},
	"/events": {
		"get": {
			{"200", "Returns all the upcoming events matching the search criteria", "Event", "events"},
			{"400", "One or more of the specified query variables has a bad format", "", ""},
			{"404", "The requested page was not found.", "", ""},
		},
	},
	`/events/(?P<id>\d+)`:             eventItemDoc,
	`/events/by-slug/(?P<slug>[^/]+)`: eventItemDoc,
	"/venues": {
		"get": {
			{"200", "Returns all the venues matching the search criteria", "Venue", "venues"},
			{"400", "One or more of the specified query variables has a bad format", "", ""},
			{"404", "The requested page was not found.", "", ""},
		},
	},
	`/venues/(?P<id>\d+)`:             venueItemDoc,
	`/venues/by-slug/(?P<slug>[^/]+)`: venueItemDoc,
	"/organizers": {
		"get": {
			{"200", "Returns all the organizers matching the search criteria", "Organizer", "organizers"},
			{"400", "One or more of the specified query variables has a bad format", "", ""},
			{"404", "The requested page was not found.", "", ""},
		},
	},
	`/organizers/(?P<id>\d+)`:             organizerItemDoc,
	`/organizers/by-slug/(?P<slug>[^/]+)`: organizerItemDoc,
	"/categories": {
		"get": {
			{"200", "Returns all the event categories matching the search criteria", "Term", "categories"},
			{"400", "One or more of the specified query variables has a bad format", "", ""},
			{"404", "The requested page was not found.", "", ""},
		},
	},
	`/categories/(?P<id>\d+)`: {
		"get": {
			{"200", "Returns the data of the event category with the specified term ID", "Term", ""},
			{"400", "The event category term ID is missing.", "", ""},
			{"404", "An event category with the specified term ID does not exist.", "", ""},
		},
		"post": {
			{"200", "Returns the data of the updated event category", "Term", ""},
			{"201", "Returns the data of the created event category", "Term", ""},
			{"400", "A required parameter is missing or an input parameter is in the wrong format", "", ""},
			{"403", "The user is not authorized to create event categories", "", ""},
		},
		"delete": {
			{"200", "Deletes an event category and returns its data", "Term", ""},
			{"400", "The event category term ID is missing or does not exist.", "", ""},
			{"403", "The current user cannot delete the event category with the specified term ID.", "", ""},
			{"410", "The event category with the specified term ID has been deleted already.", "", ""},
			{"500", "The event category with the specified term ID could not be deleted.", "", ""},
		},
	},
	"/tags": {
		"get": {
			{"200", "Returns all the event tags matching the search criteria", "Term", "tags"},
			{"400", "One or more of the specified query variables has a bad format", "", ""},
			{"404", "No event tags match the query or the requested page was not found.", "", ""},
		},
	},
	`/tags/(?P<id>\d+)`: {
		"get": {
			{"200", "Returns the data of the event tag with the specified term ID", "Term", ""},
			{"400", "The event tag term ID is missing.", "", ""},
			{"404", "An event tag with the specified term ID does not exist.", "", ""},
		},
		"post": {
			{"200", "Returns the data of the updated event tag", "Term", ""},
			{"201", "Returns the data of the created event tag", "Term", ""},
			{"400", "A required parameter is missing or an input parameter is in the wrong format", "", ""},
			{"403", "The user is not authorized to create event tags", "", ""},
		},
		"delete": {
			{"200", "Deletes an event tag and returns its data", "Term", ""},
			{"400", "The event tag term ID is missing or does not exist.", "", ""},
			{"403", "The current user cannot delete the event tag with the specified term ID.", "", ""},
			{"410", "The event tag with the specified term ID has been deleted already.", "", ""},
			{"500", "The event tag with the specified term ID could not be deleted.", "", ""},
		},
	},
}

// The by-ID and by-slug endpoints of a post type share one documentation.
var (
	eventItemDoc = map[string][]docResponse{
		"get": {
			{"200", "Returns the data of the event with the specified post ID", "Event", ""},
			{"400", "The event post ID is missing.", "", ""},
			{"403", "The event with the specified ID is not accessible.", "", ""},
			{"404", "An event with the specified ID does not exist.", "", ""},
		},
		"post": {
			{"200", "Returns the data of the updated event", "Event", ""},
			{"201", "Returns the data of the created event", "Event", ""},
			{"400", "A required parameter is missing or an input parameter is in the wrong format", "", ""},
			{"403", "The user is not authorized to create events", "", ""},
		},
		"delete": {
			{"200", "Deletes an event and returns its data", "Event", ""},
			{"400", "The event post ID is missing or does not exist.", "", ""},
			{"403", "The current user cannot delete the event with the specified ID.", "", ""},
			{"410", "The event with the specified ID has been deleted already.", "", ""},
			{"500", "The event with the specified ID could not be deleted.", "", ""},
		},
	}
	venueItemDoc = map[string][]docResponse{
		"get": {
			{"200", "Returns the data of the venue with the specified post ID", "Venue", ""},
			{"400", "The venue post ID is missing.", "", ""},
			{"403", "The venue with the specified ID is not accessible.", "", ""},
			{"404", "A venue with the specified post ID does not exist.", "", ""},
		},
		"post": {
			{"200", "Returns the data of the updated venue", "Venue", ""},
			{"201", "Returns the data of the created venue", "Venue", ""},
			{"400", "A required parameter is missing or an input parameter is in the wrong format", "", ""},
			{"403", "The user is not authorized to create venues", "", ""},
		},
		"delete": {
			{"200", "Deletes a venue and returns its data", "Venue", ""},
			{"400", "The venue post ID is missing or does not exist.", "", ""},
			{"403", "The current user cannot delete the venue with the specified ID.", "", ""},
			{"410", "The venue with the specified ID has been deleted already.", "", ""},
			{"500", "The venue with the specified ID could not be deleted.", "", ""},
		},
	}
	organizerItemDoc = map[string][]docResponse{
		"get": {
			{"200", "Returns the data of the organizer with the specified post ID", "Organizer", ""},
			{"400", "The organizer post ID is missing.", "", ""},
			{"403", "The organizer with the specified ID is not accessible.", "", ""},
			{"404", "An organizer with the specified event does not exist.", "", ""},
		},
		"post": {
			{"201", "Returns the data of the created organizer", "Organizer", ""},
			{"400", "A required parameter is missing or an input parameter is in the wrong format", "", ""},
			{"403", "The user is not authorized to create organizers", "", ""},
		},
		"delete": {
			{"200", "Deletes an organizer and returns its data", "Organizer", ""},
			{"400", "The organizer post ID is missing or does not exist.", "", ""},
			{"403", "The current user cannot delete the organizer with the specified ID.", "", ""},
			{"410", "The organizer with the specified ID has been deleted already.", "", ""},
			{"500", "The organizer with the specified ID could not be deleted.", "", ""},
		},
	}
)

// docBodyWithReadArgs lists the item routes whose documented request body starts with the read
// parameters (the path ID or slug): the organizer and category endpoints merge READ_args into the
// create arguments they document, the event, venue and tag endpoints do not.
var docBodyWithReadArgs = map[string]bool{
	`/organizers/(?P<id>\d+)`:             true,
	`/organizers/by-slug/(?P<slug>[^/]+)`: true,
	`/categories/(?P<id>\d+)`:             true,
}
