package wpv2

import (
	"math"
	"slices"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/php"
)

// GET /wp/v2/users: WP_REST_Users_Controller::get_items in the view and embed contexts. Visitors
// and users who may not list users see only authors of published posts of a type shown in REST,
// and search only the public columns.

// usersListArgs is the users controller's get_collection_params, in its order.
func usersListArgs() []*handlers.Arg {
	strItems := handlers.Schema("type", "string")
	intItems := handlers.Schema("type", "integer")
	return []*handlers.Arg{
		registryContextArg(),
		handlers.SchemaArg("page", false, handlers.Schema("description", "Current page of the collection.", "type", "integer", "default", 1, "minimum", 1), handlers.Absint),
		handlers.SchemaArg("per_page", false, handlers.Schema("description", "Maximum number of items to be returned in result set.", "type", "integer",
			"default", 10, "minimum", 1, "maximum", 100), handlers.Absint),
		handlers.SchemaArg("search", false, handlers.Schema("description", "Limit results to those matching a string.", "type", "string"), handlers.SanitizeTextParam),
		handlers.SchemaArg("exclude", false, handlers.Schema("description", "Ensure result set excludes specific IDs.", "type", "array", "items", intItems, "default", []any{}), nil),
		handlers.SchemaArg("include", false, handlers.Schema("description", "Limit result set to specific IDs.", "type", "array", "items", intItems, "default", []any{}), nil),
		handlers.SchemaArg("offset", false, handlers.Schema("description", "Offset the result set by a specific number of items.", "type", "integer"), nil),
		handlers.SchemaArg("order", false, handlers.Schema("default", "asc", "description", "Order sort attribute ascending or descending.", "enum", handlers.StrList("asc", "desc"),
			"type", "string"), nil),
		handlers.SchemaArg("orderby", false, handlers.Schema("default", "name", "description", "Sort collection by user attribute.",
			"enum", handlers.StrList("id", "include", "name", "registered_date", "slug", "include_slugs", "email", "url"), "type", "string"), nil),
		handlers.SchemaArg("slug", false, handlers.Schema("description", "Limit result set to users with one or more specific slugs.", "type", "array", "items", strItems), nil),
		handlers.SchemaArg("roles", false, handlers.Schema("description", "Limit result set to users matching at least one specific role provided. Accepts csv list or single role.",
			"type", "array", "items", strItems), nil),
		handlers.SchemaArg("capabilities", false, handlers.Schema("description", "Limit result set to users matching at least one specific capability provided. Accepts csv list or single capability.",
			"type", "array", "items", strItems), nil),
		handlers.SchemaArg("who", false, handlers.Schema("description", "Limit result set to users who are considered authors.", "type", "string", "enum", handlers.StrList("authors")), nil),
		handlers.SchemaArg("has_published_posts", false, handlers.Schema("description", "Limit result set to users who have published posts.",
			"type", handlers.StrList("boolean", "array"), "items", handlers.Schema("type", "string", "enum", handlers.StrList(coreRegistry.types.Keys()...))), nil),
		handlers.SchemaArg("search_columns", false, handlers.Schema("default", []any{}, "description", "Array of column names to be searched.", "type", "array",
			"items", handlers.Schema("enum", handlers.StrList("email", "name", "id", "username", "slug"), "type", "string")), nil),
	}
}

// usersListPermission is get_items_permissions_check.
func usersListPermission(r *handlers.Request) error {
	refuse := func(code, msg string) error {
		return &calendard.Error{Code: code, Message: msg, Status: authCode(r)}
	}
	listUsers := r.User.Can("list_users")
	if !php.Empty(r.Value("roles")) && !listUsers {
		return refuse("rest_user_cannot_view", "Sorry, you are not allowed to filter users by role.")
	}
	if !php.Empty(r.Value("capabilities")) && !listUsers {
		return refuse("rest_user_cannot_view", "Sorry, you are not allowed to filter users by capability.")
	}
	if viewContext(r) == "edit" && !listUsers {
		return refuse("rest_forbidden_context", "Sorry, you are not allowed to list users.")
	}
	if o, _ := r.Value("orderby").(string); (o == "email" || o == "registered_date") && !listUsers {
		return refuse("rest_forbidden_orderby", "Sorry, you are not allowed to order users by this parameter.")
	}
	if r.Value("who") == "authors" {
		// Some type shown in REST that supports authors and whose posts the user may edit.
		for _, name := range coreRegistry.types.Keys() {
			entry := typeEntry(name)
			supports, _ := entry.Get("supports")
			if s, ok := supports.(interface{ Has(string) bool }); ok && s.Has("author") && r.User.Can(typeEditCap(name)) {
				return nil
			}
		}
		return refuse("rest_forbidden_who", "Sorry, you are not allowed to query users by this parameter.")
	}
	return nil
}

// usersList is GET /wp/v2/users.
func (c *coreServices) usersList(r *handlers.Request) (*handlers.Response, error) {
	lister := c.posts
	if !php.Empty(r.Value("capabilities")) {
		// capability__in resolves capabilities through every role's definition and each user's
		// own grants; calendard does not run that query.
		return nil, &calendard.Error{Code: "rest_not_implemented", Message: "calendard does not filter users by capability.", Status: 501}
	}
	ints := func(name string) []int64 { return intList(r, name) }
	strs := func(name string) []string { return stringList(r, name) }
	q := calendard.CoreUserQuery{Include: ints("include"), Exclude: ints("exclude"), Slugs: strs("slug"), Roles: strs("roles")}
	q.Desc = r.Value("order") == "desc"
	orderby, _ := r.Value("orderby").(string)
	q.OrderBy = map[string]string{"id": "ID", "include": "include", "name": "display_name", "registered_date": "user_registered",
		"slug": "user_nicename", "include_slugs": "nicename__in", "email": "user_email", "url": "user_url"}[orderby]
	perPage := php.Int(r.Value("per_page"))
	q.Limit = int(perPage)
	// offset is the parameter when not empty, else the page's first row; the page of the Link
	// header is derived back from it.
	offset := php.Int(r.Value("offset"))
	if offset != 0 {
		q.Offset = int(min(offset, handlers.MaxRowOffset))
		if offset < 0 {
			// WP_User_Query writes "LIMIT -1, 10": an SQL error, so no users. SELECT FOUND_ROWS()
			// then reports the statement before it; taken as 0, the controller counts again
			// without the limit: the store's total.
			q.Offset = handlers.MaxRowOffset
		}
	} else {
		q.Offset = handlers.RowsBefore(php.Int(r.Value("page")), perPage)
		offset = int64(q.Offset)
	}
	listUsers := r.User.Can("list_users")
	published := r.Value("has_published_posts")
	switch {
	case r.Value("who") == "authors":
		q.AuthorsOnly = true
	case !listUsers:
		q.PublishedIn = coreRegistry.types.Keys()
	}
	// has_published_posts is a boolean or a list of post types (rest_get_best_type_for_value).
	if handlers.IsRESTBoolean(published) {
		if handlers.RestBool(published) {
			q.PublishedIn = coreRegistry.types.Keys()
		}
	} else if !php.Empty(published) {
		q.PublishedIn = strs("has_published_posts")
	}
	// The controller wraps the search in * wildcards; WP_User_Query trims every * off its ends.
	search, _ := r.Value("search").(string)
	if search = strings.Trim(search, "*"); search != "" {
		q.Search = search
		q.SearchColumns = userSearchColumns(search, listUsers)
		// search_columns narrows the columns to those it names that are allowed (the public ones
		// for users who may not list users).
		allowed := []string{"ID", "user_login", "user_nicename", "user_email", "display_name"}
		if !listUsers {
			allowed = q.SearchColumns
		}
		column := map[string]string{"id": "ID", "username": "user_login", "slug": "user_nicename", "email": "user_email", "name": "display_name"}
		var asked []string
		for _, c := range strs("search_columns") {
			if col := column[c]; slices.Contains(allowed, col) && !slices.Contains(asked, col) {
				asked = append(asked, col)
			}
		}
		if len(asked) > 0 {
			q.SearchColumns = asked
		}
	}
	ids, total, err := lister.CoreUserIDs(r.Context(), q)
	if err != nil {
		return nil, err
	}
	items := []any{}
	if r.Method != "HEAD" && len(ids) > 0 {
		users, err := lister.CoreUsers(r.Context(), ids)
		if err != nil {
			return nil, err
		}
		for _, u := range users {
			o, err := c.userItem(r, u, viewContext(r))
			if err != nil {
				return nil, err
			}
			items = append(items, o)
		}
	}
	page := int64(math.Ceil(float64(offset)/float64(perPage) + 1))
	maxPages := int64(math.Ceil(float64(total) / float64(perPage)))
	return pagedResponse(r, items, "/wp/v2/users", page, maxPages, int64(total)), nil
}

// userSearchColumns is the columns WP_User_Query searches: the public ones for users who may not
// list users (as the controller sets them); else chosen from the search's shape.
func userSearchColumns(search string, listUsers bool) []string {
	if !listUsers {
		return []string{"ID", "user_login", "user_nicename", "display_name"}
	}
	switch {
	case slices.Contains([]rune(search), '@'):
		return []string{"user_email"}
	case php.IsNumeric(search):
		return []string{"user_login", "ID"}
	case strings.HasPrefix(search, "http://") || strings.HasPrefix(search, "https://"):
		return []string{"user_url"}
	}
	return []string{"user_login", "user_url", "user_email", "user_nicename", "display_name"}
}
