package wpv2

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
	"github.com/calendard/calendard/internal/phpserial"
)

// GET /wp/v2/users/<id> (WP_REST_Users_Controller::get_item) in the view and embed contexts: the
// public profile posts link to as their author, and _embed shows.

func usersRoutes(svc *coreServices) []*handlers.Route {
	return []*handlers.Route{
		{Path: "/users", Endpoints: []*handlers.Endpoint{{Methods: []string{"GET"}, Args: usersListArgs(), Permission: usersListPermission, Handler: svc.usersList}}},
		{Path: `/users/(?P<id>[\d]+)`, Endpoints: []*handlers.Endpoint{{Methods: []string{"GET"},
			Args: []*handlers.Arg{handlers.SchemaArg("id", false, handlers.Schema("description", "Unique identifier for the user.", "type", "integer"), nil),
				registryContextArg()},
			Permission: svc.userReadPermission, Handler: svc.userGet}}},
	}
}

var errUserInvalidID = &calendard.Error{Code: "rest_user_invalid_id", Message: "Invalid user ID.", Status: 404}

// coreUser is the user the route names, or rest_user_invalid_id.
func (c *coreServices) coreUser(r *handlers.Request) (*calendard.CoreUser, error) {
	id := php.Int(r.Value("id"))
	reader := c.posts
	if id <= 0 {
		return nil, errUserInvalidID
	}
	u, err := reader.CoreUser(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if u == nil {
		return nil, errUserInvalidID
	}
	return u, nil
}

// userReadPermission is get_item_permissions_check: oneself, users who may list users, and
// anyone for an author of published posts.
func (c *coreServices) userReadPermission(r *handlers.Request) error {
	u, err := c.coreUser(r)
	if err != nil {
		return err
	}
	if r.User.ID == u.ID {
		return nil
	}
	refused := &calendard.Error{Code: "rest_user_cannot_view", Message: "Sorry, you are not allowed to list users.", Status: authCode(r)}
	if viewContext(r) == "edit" && !r.User.Can("list_users") {
		return refused
	}
	if !countsUserPosts(r, u) && !r.User.Can("edit_users") && !r.User.Can("list_users") {
		return refused
	}
	return nil
}

// countsUserPosts is count_user_posts over the post types shown in REST (get_posts_by_author_sql
// with the current user's view): published posts, and private ones of a type whose
// read_private_posts the current user holds (their own private posts only count on their own
// profile, which needs no count).
func countsUserPosts(r *handlers.Request, u *calendard.CoreUser) bool {
	for _, typ := range coreRegistry.types.Keys() {
		c := u.Posts[typ]
		if c.Publish > 0 || (c.Private > 0 && r.User.Can(registryCap(typeEntry(typ), "read_private_posts"))) {
			return true
		}
	}
	return false
}

// userGet answers the profile.
func (c *coreServices) userGet(r *handlers.Request) (*handlers.Response, error) {
	u, err := c.coreUser(r)
	if err != nil {
		return nil, err
	}
	o, err := c.userItem(r, u, viewContext(r))
	if err != nil {
		return nil, err
	}
	return handlers.Ok(o), nil
}

// userItem is WP_REST_Users_Controller::prepare_item_for_response, fields in its order, each in
// the contexts of its schema.
func (c *coreServices) userItem(r *handlers.Request, u *calendard.CoreUser, ctx string) (*phpjson.Object, error) {
	edit := ctx == "edit"
	var ed *calendard.CoreUserEdit
	if edit {
		lister := c.posts
		var err error
		if ed, err = lister.CoreUserEdit(r.Context(), u.ID); err != nil {
			return nil, err
		}
		if ed == nil {
			return nil, errUserInvalidID
		}
	}
	link := r.Site.HomeURL + "/?author=" + strconv.FormatInt(u.ID, 10)
	if r.Site.PrettyPermalinks {
		link = r.Site.HomeURL + "/author/" + u.Nicename + "/"
	}
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(u.Email))))
	hash := hex.EncodeToString(sum[:])
	avatars := phpjson.NewObject()
	for _, size := range []string{"24", "48", "96"} {
		avatars.Set(size, "https://secure.gravatar.com/avatar/"+hash+"?s="+size+"&d=mm&r=g")
	}
	o := phpjson.Obj("id", u.ID)
	if edit {
		o.Set("username", ed.Login)
	}
	o.Set("name", u.DisplayName)
	if edit {
		o.Set("first_name", ed.FirstName)
		o.Set("last_name", ed.LastName)
		o.Set("email", u.Email)
	}
	o.Set("url", u.URL)
	o.Set("description", u.About)
	o.Set("link", link)
	if edit {
		o.Set("locale", ed.Locale)
		o.Set("nickname", ed.Nickname)
	}
	o.Set("slug", u.Nicename)
	if edit {
		o.Set("roles", handlers.StrList(ed.Roles...))
		o.Set("registered_date", registeredDate(ed.Registered))
		o.Set("capabilities", capsObject(ed.AllCaps))
		o.Set("extra_capabilities", capsObject(ed.Caps))
	}
	o.Set("avatar_urls", avatars)
	switch ctx {
	case "view":
		// The one registered user meta, persisted_preferences, is edit-only.
		o.Set("meta", []any{})
	case "edit":
		o.Set("meta", phpjson.Obj("persisted_preferences", persistedPreferences(ed.Preferences)))
	}
	allow := []any{"GET"}
	if r.User.ID == u.ID || r.User.Can("edit_users") {
		allow = append(allow, "POST", "PUT", "PATCH")
	}
	if r.User.Can("delete_users") {
		allow = append(allow, "DELETE")
	}
	o.Set("_links", phpjson.Obj(
		"self", []any{phpjson.Obj("href", handlers.RestURL(r.Site, "/wp/v2/users/"+strconv.FormatInt(u.ID, 10)), "targetHints", phpjson.Obj("allow", allow))},
		"collection", []any{phpjson.Obj("href", handlers.RestURL(r.Site, "/wp/v2/users"))}))
	return o, nil
}

// registeredDate is gmdate('c', strtotime(user_registered)), the stored UTC datetime.
func registeredDate(stored string) string {
	t, err := time.Parse(time.DateTime, stored)
	if err != nil || stored == calendard.ZeroDate {
		return "-0001-11-30T00:00:00+00:00" // strtotime of the zero date
	}
	return t.UTC().Format("2006-01-02T15:04:05+00:00")
}

// capsObject is (object) of a capability array: a JSON object, {} when empty.
func capsObject(caps []calendard.KV) any {
	o := phpjson.NewObject()
	for _, c := range caps {
		o.Set(c.Key, handlers.SerialToJSON(c.Value))
	}
	return emptyObject(o)
}

// persistedPreferences is the persisted_preferences meta as WP_REST_Meta_Fields prepares an object
// value: the stored array ([] when there is none), null when what is stored is no array.
func persistedPreferences(stored string) any {
	if stored == "" {
		return []any{}
	}
	v, err := phpserial.Unmarshal(stored)
	if a, isArr := v.(*phpserial.Array); err == nil && isArr {
		if a.Len() == 0 {
			return []any{}
		}
		return handlers.SerialToJSON(a)
	}
	return nil
}
