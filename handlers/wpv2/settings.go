package wpv2

import (
	"encoding/json"
	"strconv"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/phpjson"
)

// coreSetting is one setting WordPress registers with show_in_rest (register_initial_settings), in
// registration order.
type coreSetting struct {
	name, option, typ string
}

var coreSettings = []coreSetting{
	{"title", "blogname", "string"},
	{"description", "blogdescription", "string"},
	{"url", "siteurl", "string"},
	{"email", "admin_email", "string"},
	{"timezone", "timezone_string", "string"},
	{"date_format", "date_format", "string"},
	{"time_format", "time_format", "string"},
	{"start_of_week", "start_of_week", "integer"},
	{"language", "WPLANG", "string"},
	{"use_smilies", "use_smilies", "boolean"},
	{"default_category", "default_category", "integer"},
	{"default_post_format", "default_post_format", "string"},
	{"posts_per_page", "posts_per_page", "integer"},
	{"show_on_front", "show_on_front", "string"},
	{"page_on_front", "page_on_front", "integer"},
	{"page_for_posts", "page_for_posts", "integer"},
	{"default_ping_status", "default_ping_status", "string"},
	{"default_comment_status", "default_comment_status", "string"},
	{"site_logo", "site_logo", "integer"},
	{"site_icon", "site_icon", "integer"},
}

// settingsPermission is WP_REST_Settings_Controller::get_item_permissions_check (manage_options);
// a false answer is the server's generic rest_forbidden.
func settingsPermission(r *handlers.Request) error {
	if !r.User.Can("manage_options") {
		return calendard.ErrForbidden(r.User.LoggedIn())
	}
	return nil
}

// settings is GET /wp/v2/settings: every registered setting, prepared by its schema type.
func (c *coreServices) settings(r *handlers.Request) (*handlers.Response, error) {
	reader := c.posts
	names := make([]string, len(coreSettings))
	for i, s := range coreSettings {
		names[i] = s.option
	}
	opts, err := reader.Options(r.Context(), names...)
	if err != nil {
		return nil, err
	}
	o := phpjson.NewObject()
	for _, s := range coreSettings {
		v, has := opts[s.option]
		if s.option == "WPLANG" && v == "" {
			// get_locale(): an empty WPLANG is the default locale.
			v, has = "en_US", true
		}
		o.Set(s.name, prepareSetting(v, has, s.typ))
	}
	return handlers.Ok(o), nil
}

// prepareSetting is WP_REST_Settings_Controller::prepare_value on get_option's answer: a missing
// option is false, and a value its schema refuses is null.
func prepareSetting(v string, has bool, typ string) any {
	if !has {
		if typ == "boolean" {
			return false
		}
		return nil
	}
	switch typ {
	case "integer":
		if !handlers.IsRESTInteger(v) {
			return nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil
		}
		return json.Number(strconv.FormatInt(n, 10))
	case "boolean":
		if v == "" {
			return false
		}
		if !handlers.IsRESTBoolean(v) {
			return nil
		}
		return handlers.RestBool(v)
	}
	return v
}
