package wpv2

import (
	"strconv"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
	"github.com/calendard/calendard/internal/wptext"
)

// settingDoc is what register_setting gives a setting beyond its type: label, description,
// default and schema keywords, as the settings schema shows them.
type settingDoc struct {
	title, description string
	def                any
	format             string
	enum               []string
}

var settingDocs = map[string]settingDoc{
	"title":                  {title: "Title", description: "Site title."},
	"description":            {title: "Tagline", description: "Site tagline."},
	"url":                    {description: "Site URL.", format: "uri"},
	"email":                  {description: "This address is used for admin purposes, like new user notification.", format: "email"},
	"timezone":               {description: "A city in the same timezone as you."},
	"date_format":            {description: "A date format for all date strings."},
	"time_format":            {description: "A time format for all time strings."},
	"start_of_week":          {description: "A day number of the week that the week should start on."},
	"language":               {description: "WordPress locale code.", def: "en_US"},
	"use_smilies":            {description: "Convert emoticons like :-) and :-P to graphics on display.", def: true},
	"default_category":       {description: "Default post category."},
	"default_post_format":    {description: "Default post format."},
	"posts_per_page":         {title: "Maximum posts per page", description: "Blog pages show at most.", def: 10},
	"show_on_front":          {title: "Show on front", description: "What to show on the front page"},
	"page_on_front":          {title: "Page on front", description: "The ID of the page that should be displayed on the front page"},
	"page_for_posts":         {description: "The ID of the page that should display the latest posts"},
	"default_ping_status":    {description: "Allow link notifications from other blogs (pingbacks and trackbacks) on new articles.", enum: []string{"open", "closed"}},
	"default_comment_status": {title: "Allow comments on new posts", description: "Allow people to submit comments on new posts.", enum: []string{"open", "closed"}},
	"site_logo":              {title: "Logo", description: "Site logo."},
	"site_icon":              {title: "Icon", description: "Site icon."},
}

// settingSchema is one setting's property of the settings schema.
func settingSchema(s coreSetting) *phpjson.Object {
	d := settingDocs[s.name]
	o := phpjson.Obj("type", s.typ, "title", d.title, "description", d.description, "default", d.def)
	if d.format != "" {
		o.Set("format", d.format)
	}
	if d.enum != nil {
		o.Set("enum", handlers.StrList(d.enum...))
	}
	return o
}

// settingsSchema is WP_REST_Settings_Controller::get_item_schema (OPTIONS).
func settingsSchema(*handlers.Request) *phpjson.Object {
	props := phpjson.NewObject()
	for _, s := range coreSettings {
		props.Set(s.name, settingSchema(s))
	}
	return phpjson.Obj("$schema", "http://json-schema.org/draft-04/schema#", "title", "settings", "type", "object", "properties", props)
}

// settingsArgs are the settings schema as endpoint arguments (get_endpoint_args_for_item_schema
// drops the defaults): each setting's type, null allowed (it resets the option).
func settingsArgs() []*handlers.Arg {
	args := make([]*handlers.Arg, 0, len(coreSettings))
	for _, s := range coreSettings {
		s := s
		d := settingDocs[s.name]
		doc := phpjson.Obj("title", d.title, "description", d.description, "type", s.typ)
		if d.format != "" {
			doc.Set("format", d.format)
		}
		if d.enum != nil {
			doc.Set("enum", handlers.StrList(d.enum...))
		}
		args = append(args, &handlers.Arg{Name: s.name, Type: s.typ, Schema: doc,
			Validate: func(_ *handlers.Request, v any) error {
				if v == nil {
					return nil
				}
				_, err := handlers.Coerce(s.name, s.typ, v)
				return err
			},
			Sanitize: func(_ *handlers.Request, v any) (any, error) {
				if v == nil {
					return nil, nil
				}
				return handlers.Coerce(s.name, s.typ, v)
			}})
	}
	return args
}

// settingsUpdate is WP_REST_Settings_Controller::update_item: update_option (or delete_option for
// null) for every registered setting sent, then the settings as GET answers them.
func (c *coreServices) settingsUpdate(r *handlers.Request) (*handlers.Response, error) {
	type change struct {
		option string
		value  *string // nil deletes
	}
	var changes []change
	for _, s := range coreSettings {
		if !hasParam(r, s.name) {
			continue
		}
		v := r.Value(s.name)
		if v == nil {
			changes = append(changes, change{option: s.option})
			continue
		}
		stored := optionString(v)
		changes = append(changes, change{option: s.option, value: &stored})
	}
	if len(changes) > 0 {
		err := handlers.Write(r, c.writer, func(tx calendard.WriteTx) error {
			for _, c := range changes {
				old, exists, err := tx.Option(r.Context(), c.option)
				if err != nil {
					return err
				}
				if c.value == nil {
					if exists {
						if err := tx.DeleteOption(r.Context(), c.option); err != nil {
							return err
						}
					}
					continue
				}
				value, keep := sanitizeOption(c.option, *c.value, old)
				if keep || (exists && value == old) {
					continue
				}
				if err := tx.UpdateOption(r.Context(), c.option, value); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return c.settings(r)
}

// hasParam is array_key_exists on get_params(): sent, even as null.
func hasParam(r *handlers.Request, name string) bool {
	for _, src := range r.Sources() {
		if src.Has(name) {
			return true
		}
	}
	return false
}

// optionString is how update_option stores a scalar (wpdb's string conversion).
func optionString(v any) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "1"
		}
		return ""
	case int64:
		return strconv.FormatInt(x, 10)
	}
	s, _ := php.String(v)
	return s
}

// sanitizeOption is sanitize_option for the REST settings: keep reports a value WordPress refuses
// (it adds a settings error and keeps the stored value).
func sanitizeOption(option, value, old string) (string, bool) {
	switch option {
	case "blogname", "blogdescription":
		return wptext.EscHTML(wptext.FilterPostKses(value, "")), false
	case "timezone_string":
		if value == "" {
			return value, false
		}
		if value == "Local" {
			return old, true
		}
		if _, err := time.LoadLocation(value); err != nil {
			return old, true
		}
	case "start_of_week", "default_category", "page_on_front", "page_for_posts", "site_logo", "site_icon":
		return strconv.FormatInt(absInt(php.Int(value)), 10), false
	case "posts_per_page":
		n := php.Int(value)
		if n == 0 {
			n = 1
		}
		return strconv.FormatInt(n, 10), false
	case "default_ping_status", "default_comment_status":
		if value != "open" {
			value = "closed"
		}
	}
	return value, false
}

func absInt(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
