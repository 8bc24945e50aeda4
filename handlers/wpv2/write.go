package wpv2

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
	"github.com/calendard/calendard/internal/wptext"
)

// wp/v2 create and update of the calendar's post types: WP_REST_Posts_Controller::create_item and
// update_item as the plugin registers its types. Everything the request asks for is checked before
// the transaction starts; where WordPress writes the post and then refuses a meta value (a
// half-write), calendard answers the same error and the transaction writes nothing.

// coreWritableStatuses is the status enum of the posts schema: get_post_stati(internal => false), in
// registration order (core's, then the plugin's and its aggregator's).
var coreWritableStatuses = []string{"publish", "future", "draft", "pending", "private", "in-progress", "failed",
	"tribe-ea-success", "tribe-ea-failed", "tribe-ea-schedule", "tribe-ea-pending", "tribe-ea-draft", "tribe-ignored"}

// writeArgs are get_endpoint_args_for_item_schema(CREATABLE or EDITABLE) for the type's schema, in
// schema order; an update has the route's id first.
func (h *corePosts) writeArgs(update bool) []*handlers.Arg {
	var args []*handlers.Arg
	if update {
		args = append(args, coreIDArg())
	}
	args = append(args,
		coreDateArg("date", "The date the post was published, in the site's timezone."),
		coreDateArg("date_gmt", "The date the post was published, as GMT."),
		&handlers.Arg{Name: "slug", Type: "string", Description: "An alphanumeric identifier for the post unique to its type.",
			Validate: func(_ *handlers.Request, v any) error { _, err := handlers.Coerce("slug", "string", v); return err },
			Sanitize: func(_ *handlers.Request, v any) (any, error) {
				s, _ := php.String(v)
				return wptext.SanitizeTitle(s), nil
			}},
		&handlers.Arg{Name: "status", Type: "string", Description: "A named status for the post.", Validate: h.validStatus},
		coreTyped("password", "string", "A password to protect access to the content and excerpt.", nil),
		// title, content and excerpt are objects whose validation WordPress switches off.
		&handlers.Arg{Name: "title", Description: "The title for the post."},
		&handlers.Arg{Name: "content", Description: "The content for the post."},
		coreTyped("author", "integer", "The ID for the author of the post.", nil),
		&handlers.Arg{Name: "excerpt", Description: "The excerpt for the post."},
		coreTyped("featured_media", "integer", "The ID of the featured media for the post.", nil),
		&handlers.Arg{Name: "meta", Description: "Meta fields.", Validate: func(_ *handlers.Request, v any) error {
			// check_meta_is_array
			if !php.IsArray(v) {
				return handlers.ErrInvalid
			}
			return nil
		}},
		&handlers.Arg{Name: "template", Type: "string", Description: "The theme file to use to display the post.", Validate: h.validTemplate},
	)
	for _, tax := range h.taxonomies {
		args = append(args, coreTermListArg(tax.base, tax.name))
	}
	for _, a := range args {
		if a.Schema == nil {
			a.Schema = h.writeArgSchema(a.Name)
		}
	}
	return args
}

// writeArgSchema is an argument's description in route answers (OPTIONS, indexes): the property of
// the posts schema without its context, readonly and default keywords.
func (h *corePosts) writeArgSchema(name string) *phpjson.Object {
	text := func(what, raw, rendered string, extra ...any) *phpjson.Object {
		props := phpjson.Obj("raw", phpjson.Obj("description", raw, "type", "string", "context", handlers.StrList("edit")),
			"rendered", phpjson.Obj("description", rendered, "type", "string", "context", handlers.StrList("view", "edit", "embed"), "readonly", true))
		for i := 0; i+1 < len(extra); i += 2 {
			props.Set(extra[i].(string), extra[i+1])
		}
		return phpjson.Obj("description", "The "+what+" for the post.", "type", "object", "properties", props)
	}
	protected := func(what string) *phpjson.Object {
		return phpjson.Obj("description", "Whether the "+what+" is protected with a password.", "type", "boolean",
			"context", handlers.StrList("view", "edit", "embed"), "readonly", true)
	}
	switch name {
	case "date":
		return phpjson.Obj("description", "The date the post was published, in the site's timezone.", "type", handlers.StrList("string", "null"), "format", "date-time")
	case "date_gmt":
		return phpjson.Obj("description", "The date the post was published, as GMT.", "type", handlers.StrList("string", "null"), "format", "date-time")
	case "slug":
		return phpjson.Obj("description", "An alphanumeric identifier for the post unique to its type.", "type", "string")
	case "status":
		return phpjson.Obj("description", "A named status for the post.", "type", "string", "enum", handlers.StrList(coreWritableStatuses...))
	case "password":
		return phpjson.Obj("description", "A password to protect access to the content and excerpt.", "type", "string")
	case "title":
		return text("title", "Title for the post, as it exists in the database.", "HTML title for the post, transformed for display.")
	case "content":
		o := text("content", "Content for the post, as it exists in the database.", "HTML content for the post, transformed for display.",
			"block_version", phpjson.Obj("description", "Version of the content block format used by the post.", "type", "integer",
				"context", handlers.StrList("edit"), "readonly", true),
			"protected", protected("content"))
		rendered, _ := o.Get("properties")
		r, _ := rendered.(*phpjson.Object).Get("rendered")
		r.(*phpjson.Object).Set("context", handlers.StrList("view", "edit"))
		return o
	case "excerpt":
		return text("excerpt", "Excerpt for the post, as it exists in the database.", "HTML excerpt for the post, transformed for display.",
			"protected", protected("excerpt"))
	case "author":
		return phpjson.Obj("description", "The ID for the author of the post.", "type", "integer")
	case "featured_media":
		return phpjson.Obj("description", "The ID of the featured media for the post.", "type", "integer")
	case "meta":
		props := phpjson.NewObject()
		for _, k := range h.meta {
			if k.multi {
				desc := "Event Organizers"
				if k.key == "_EventVenueID" {
					desc = "Event Venue"
				}
				props.Set(k.key, phpjson.Obj("type", "array",
					"items", phpjson.Obj("type", "number", "title", "", "description", desc, "default", 0)))
				continue
			}
			var def any = ""
			if k.typ == "boolean" {
				def = false
			}
			props.Set(k.key, phpjson.Obj("type", k.typ, "title", "", "description", "", "default", def))
		}
		return phpjson.Obj("description", "Meta fields.", "type", "object", "properties", props)
	case "template":
		return phpjson.Obj("description", "The theme file to use to display the post.", "type", "string")
	}
	return nil
}

// coreDateArg is a date-time property: a string WordPress can parse (rest_parse_date), or null.
func coreDateArg(name, desc string) *handlers.Arg {
	return &handlers.Arg{Name: name, Description: desc, Format: "date-time", Validate: func(_ *handlers.Request, v any) error {
		if v == nil {
			return nil
		}
		s, ok := v.(string)
		if !ok {
			return handlers.TypeError(name, "string,null")
		}
		if _, ok := restParseDate(s); !ok {
			return &calendard.Error{Code: "rest_invalid_date", Message: "Invalid date.", HasRawData: true}
		}
		return nil
	}}
}

// coreTermListArg is a taxonomy's property: an array of term IDs.
func coreTermListArg(base, taxonomy string) *handlers.Arg {
	desc := fmt.Sprintf("The terms assigned to the post in the %s taxonomy.", taxonomy)
	return &handlers.Arg{Name: base, Type: "array", ItemsType: "integer", Description: desc,
		Schema: phpjson.Obj("description", desc, "type", "array", "items", phpjson.Obj("type", "integer")),
		Validate: func(_ *handlers.Request, v any) error {
			items, ok := restArray(v)
			if !ok {
				return handlers.TypeError(base, "array")
			}
			for i, it := range items {
				if !handlers.IsRESTInteger(it) {
					return handlers.TypeError(fmt.Sprintf("%s[%d]", base, i), "integer")
				}
			}
			return nil
		},
		Sanitize: func(_ *handlers.Request, v any) (any, error) {
			items, _ := restArray(v)
			out := make([]any, len(items))
			for i, it := range items {
				out[i] = php.Int(it)
			}
			return out, nil
		}}
}

var listSplitRe = regexp.MustCompile(`[\s,]+`)

// restArray is rest_is_array + rest_sanitize_array: a list, or a scalar read as a comma or space
// separated list (wp_parse_list).
func restArray(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case *phpjson.Object:
		if x.IsList() || x.Len() == 0 {
			return x.Values(), true
		}
		return nil, false
	case nil:
		return nil, false
	case string, json.Number, bool:
		s, _ := php.String(x)
		var out []any
		for _, p := range listSplitRe.Split(s, -1) {
			if p != "" {
				out = append(out, p)
			}
		}
		return out, true
	}
	return nil, false
}

// validStatus is check_status: the post's own current status is always accepted on an update,
// anything else must be in the schema's enum.
func (h *corePosts) validStatus(r *handlers.Request, v any) error {
	s, ok := v.(string)
	if !ok {
		return handlers.TypeError("status", "string")
	}
	if id := php.Int(r.Value("id")); id > 0 {
		if p, err := h.svc.posts.PostByID(r.Context(), id); err != nil {
			return err
		} else if p != nil && p.Type == h.postType && p.Status == s {
			return nil
		}
	}
	for _, st := range coreWritableStatuses {
		if st == s {
			return nil
		}
	}
	return &calendard.Error{Code: "rest_not_in_enum", HasRawData: true,
		Message: "status is not one of " + handlers.SprintfList(coreWritableStatuses) + "."}
}

// validTemplate is check_template: "" or the post's current template; the calendar's types have no
// page templates in the reference's theme.
func (h *corePosts) validTemplate(r *handlers.Request, v any) error {
	s, ok := v.(string)
	if !ok {
		return handlers.TypeError("template", "string")
	}
	if s == "" {
		return nil
	}
	if id := php.Int(r.Value("id")); id > 0 {
		if cp, err := h.post(r); err == nil && cp.Meta.Value("_wp_page_template") == s {
			return nil
		}
	}
	return &calendard.Error{Code: "rest_invalid_param", Message: "template is not one of .", HasRawData: true}
}

// createPermission is create_item_permissions_check.
func (h *corePosts) createPermission(r *handlers.Request) error {
	if !php.Empty(r.Value("id")) {
		return errPostExists
	}
	caps := calendard.CapsOf(h.postType)
	if a := r.Value("author"); !php.Empty(a) && php.Int(a) != r.User.ID && !r.User.Can(caps.EditOthers) {
		return &calendard.Error{Code: "rest_cannot_edit_others", Message: "Sorry, you are not allowed to create posts as this user.", Status: authCode(r)}
	}
	if !r.User.Can(caps.Edit) {
		return &calendard.Error{Code: "rest_cannot_create", Message: "Sorry, you are not allowed to create posts as this user.", Status: authCode(r)}
	}
	return h.assignTermsPermission(r)
}

// updatePermission is update_item_permissions_check.
func (h *corePosts) updatePermission(r *handlers.Request) error {
	if err := h.editPermission(r); err != nil {
		return err
	}
	caps := calendard.CapsOf(h.postType)
	if a := r.Value("author"); !php.Empty(a) && php.Int(a) != r.User.ID && !r.User.Can(caps.EditOthers) {
		return &calendard.Error{Code: "rest_cannot_edit_others", Message: "Sorry, you are not allowed to update posts as this user.", Status: authCode(r)}
	}
	return h.assignTermsPermission(r)
}

// assignTermsPermission is check_assign_terms_permission: every existing term sent must be
// assignable (the taxonomy's assign_terms capability).
func (h *corePosts) assignTermsPermission(r *handlers.Request) error {
	for _, tax := range h.taxonomies {
		v, ok := r.Param(tax.base)
		if !ok {
			continue
		}
		items, _ := restArray(v)
		if len(items) == 0 {
			continue
		}
		terms, err := h.svc.taxonomies.Terms.TermsOf(r.Context(), tax.name)
		if err != nil {
			return err
		}
		_, assign := coreTermCaps(tax.name)
		for _, it := range items {
			id := php.Int(it)
			for _, t := range terms {
				if t.ID == id && !r.User.Can(assign) {
					return &calendard.Error{Code: "rest_cannot_assign_term", Message: "Sorry, you are not allowed to assign the provided terms.", Status: authCode(r)}
				}
			}
		}
	}
	return nil
}

// byID loads a post of the type written by this request.
func (h *corePosts) byID(r *handlers.Request, id int64) (*calendard.CorePost, error) {
	reader := h.svc.posts
	p, err := reader.CorePost(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if p == nil || p.Type != h.postType {
		return nil, errPostInvalidID
	}
	return p, nil
}

var errPostExists = &calendard.Error{Code: "rest_post_exists", Message: "Cannot create existing post.", Status: 400}

// create is POST /wp/v2/<type>.
func (h *corePosts) create(r *handlers.Request) (*handlers.Response, error) {
	if !php.Empty(r.Value("id")) {
		return nil, errPostExists
	}
	w, err := h.prepare(r, nil)
	if err != nil {
		return nil, err
	}
	var id int64
	err = handlers.Write(r, h.svc.writer, func(tx calendard.WriteTx) error {
		p, err := calendard.SaveCorePost(r.Context(), tx, r.Site, r.User, w)
		if p != nil {
			id = p.ID
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	cp, err := h.byID(r, id)
	if err != nil {
		return nil, err
	}
	body := h.item(r, cp, "edit", true)
	return (&handlers.Response{Status: 201, Body: body}).Header("Location", handlers.RestURL(r.Site, "/wp/v2/"+h.postType+"/"+strconv.FormatInt(id, 10))), nil
}

// update is POST/PUT/PATCH /wp/v2/<type>/<id>.
func (h *corePosts) update(r *handlers.Request) (*handlers.Response, error) {
	before, err := h.post(r)
	if err != nil {
		return nil, err
	}
	w, err := h.prepare(r, before.Post)
	if err != nil {
		return nil, err
	}
	if err := handlers.Write(r, h.svc.writer, func(tx calendard.WriteTx) error {
		_, err := calendard.SaveCorePost(r.Context(), tx, r.Site, r.User, w)
		return err
	}); err != nil {
		return nil, err
	}
	cp, err := h.post(r)
	if err != nil {
		return nil, err
	}
	return handlers.Ok(h.item(r, cp, "edit", true)), nil
}

// prepare is prepare_item_for_database plus what the controller hands wp_insert_post and the meta
// fields: the whole write, checked. A meta value the schema refuses is kept as MetaErr, which the
// write returns where WordPress would (after the post row), so nothing is written.
func (h *corePosts) prepare(r *handlers.Request, before *calendard.Post) (*calendard.CorePostWrite, error) {
	w := &calendard.CorePostWrite{Type: h.postType}
	if before != nil {
		w.ID = before.ID
	}
	text := func(name string, needNonEmpty bool) *string {
		v, ok := r.Param(name)
		if !ok {
			return nil
		}
		if s, isStr := v.(string); isStr {
			return &s
		}
		if o, isObj := v.(*phpjson.Object); isObj {
			raw, has := o.Get("raw")
			if !has || raw == nil || (needNonEmpty && php.Empty(raw)) {
				return nil
			}
			if s, isStr := php.String(raw); isStr && !php.IsArray(raw) {
				return &s
			}
		}
		return nil
	}
	w.Title = text("title", true)
	w.Content = text("content", false)
	w.Excerpt = text("excerpt", false)

	if v, ok := r.Param("status"); ok {
		s, _ := v.(string)
		if before == nil || before.Status != s {
			st, err := h.handleStatus(r, s)
			if err != nil {
				return nil, err
			}
			w.Status = st
		}
	}
	dateParam := func(name string, utc bool) error {
		v, ok := r.Param(name)
		if !ok || php.Empty(v) {
			return errNotSent
		}
		s, _ := v.(string)
		local, gmt, ok := restDateWithGMT(r.Site, s, utc)
		if !ok {
			return nil
		}
		current := ""
		if before != nil {
			current = before.Date
			if utc {
				current = before.DateGMT
			}
		}
		cmp := local
		if utc {
			cmp = gmt
		}
		if before == nil || current != cmp {
			w.Date, w.DateGMT = &local, &gmt
		}
		return nil
	}
	if err := dateParam("date", false); err == errNotSent {
		_ = dateParam("date_gmt", true)
	}
	if v, ok := r.Param("slug"); ok {
		s, _ := php.String(v)
		w.Slug = &s
	}
	if v, ok := r.Param("author"); ok && !php.Empty(v) {
		id := php.Int(v)
		if id != r.User.ID {
			u, err := h.svc.users.UserByID(r.Context(), id)
			if err != nil {
				return nil, err
			}
			if u == nil {
				return nil, &calendard.Error{Code: "rest_invalid_author", Message: "Invalid author ID.", Status: 400}
			}
		}
		w.Author = &id
	}
	if v, ok := r.Param("password"); ok {
		s, _ := php.String(v)
		w.Password = &s
	}
	if v, ok := r.Param("featured_media"); ok {
		id := php.Int(v)
		w.FeaturedMedia = &id
	}
	for _, tax := range h.taxonomies {
		v, ok := r.Param(tax.base)
		if !ok {
			continue
		}
		items, _ := restArray(v)
		t := calendard.CoreTerms{Taxonomy: tax.name, IDs: []int64{}}
		for _, it := range items {
			t.IDs = append(t.IDs, php.Int(it))
		}
		w.Terms = append(w.Terms, t)
	}
	if v, ok := r.Param("meta"); ok {
		w.Meta, w.MetaErr = h.prepareMeta(r, v)
	}
	if body, isJSON := r.JSONBody(); h.postType == calendard.PostTypeEvent && isJSON {
		w.JSONMeta = &calendard.CoreJSONMeta{}
		if o, ok := body.Get("meta"); ok {
			if m, isObj := o.(*phpjson.Object); isObj {
				isset := func(key string) *string {
					v, has := m.Get(key)
					if !has || v == nil {
						return nil
					}
					s, _ := php.String(v)
					return &s
				}
				w.JSONMeta.Start, w.JSONMeta.End = isset("_EventStartDate"), isset("_EventEndDate")
				w.JSONMeta.Timezone, w.JSONMeta.Cost = isset("_EventTimezone"), isset("_EventCost")
			}
		}
	}
	return w, nil
}

var errNotSent = fmt.Errorf("not sent")

// handleStatus is handle_status_param.
func (h *corePosts) handleStatus(r *handlers.Request, status string) (string, error) {
	caps := calendard.CapsOf(h.postType)
	switch status {
	case "draft", "pending":
	case "private":
		if !r.User.Can(caps.Publish) {
			return "", &calendard.Error{Code: "rest_cannot_publish", Message: "Sorry, you are not allowed to create private posts in this post type.", Status: authCode(r)}
		}
	case "publish", "future":
		if !r.User.Can(caps.Publish) {
			return "", &calendard.Error{Code: "rest_cannot_publish", Message: "Sorry, you are not allowed to publish posts in this post type.", Status: authCode(r)}
		}
	default:
		if !calendard.IsRegisteredStatus(status) {
			status = "draft"
		}
	}
	return status, nil
}

// prepareMeta is WP_REST_Meta_Fields::update_value's checks over the registered keys sent, in
// registration order: the first value its schema refuses is the answer (status 400, the param in
// additional_data as WordPress adds it), and every value is sanitized to what update_metadata stores.
func (h *corePosts) prepareMeta(r *handlers.Request, v any) ([]calendard.CoreMeta, error) {
	m, ok := v.(*phpjson.Object)
	if !ok {
		return nil, nil // a list carries no key WordPress registered
	}
	var out []calendard.CoreMeta
	for _, k := range h.meta {
		val, has := m.Get(k.key)
		if !has {
			continue
		}
		param := "meta." + k.key
		if val == nil || (k.multi && handlers.IsEmptyList(val)) {
			// delete_meta_value checks delete_post_meta first.
			if err := metaAuthError(r, k.key, "rest_cannot_delete"); err != nil {
				return nil, err
			}
			out = append(out, calendard.CoreMeta{Key: k.key, Multi: k.multi, Delete: true})
			continue
		}
		if k.multi {
			items, isArr := restArray(val)
			if !isArr {
				return nil, metaTypeError(param, "array")
			}
			cm := calendard.CoreMeta{Key: k.key, Multi: true, Values: []string{}}
			for i, it := range items {
				if it == nil {
					return nil, &calendard.Error{Code: "rest_invalid_stored_value", Status: 500,
						Message: fmt.Sprintf("The %s property has an invalid stored value, and cannot be updated to null.", k.key)}
				}
				if _, isBool := it.(bool); isBool || !php.IsNumeric(it) || php.IsArray(it) {
					return nil, metaTypeError(fmt.Sprintf("%s[%d]", param, i), "number")
				}
				// The plugin's sanitize_numeric_array stores absolute integers.
				n := php.Int(it)
				if n < 0 {
					n = -n
				}
				cm.Values = append(cm.Values, strconv.FormatInt(n, 10))
			}
			// update_multi_meta_value checks edit_post_meta once the value is valid.
			if err := metaAuthError(r, k.key, "rest_cannot_update"); err != nil {
				return nil, err
			}
			out = append(out, cm)
			continue
		}
		var stored string
		switch k.typ {
		case "boolean":
			if !handlers.IsRESTBoolean(val) {
				return nil, metaTypeError(param, "boolean")
			}
			if handlers.RestBool(val) {
				stored = "1"
			}
		default:
			s, isStr := val.(string)
			if !isStr {
				return nil, metaTypeError(param, "string")
			}
			stored = s
			if k.key != "footnotes" {
				// The plugin registers its text keys with sanitize_text_field.
				stored = wptext.SanitizeTextField(s)
			}
		}
		// update_meta_value checks edit_post_meta once the value is valid.
		if err := metaAuthError(r, k.key, "rest_cannot_update"); err != nil {
			return nil, err
		}
		out = append(out, calendard.CoreMeta{Key: k.key, Values: []string{stored}})
	}
	return out, nil
}

// metaAuthError is map_meta_cap's edit_post_meta / delete_post_meta for one registered key, past
// the edit_post the route's permission check already required: a protected key ("_…") is allowed
// only by its auth_callback. The plugin's Tribe__Editor__Meta keys allow whoever may edit the post
// (granted here); its event status keys (Event_Status\Classic_Editor) need the edit_posts
// capability; core's footnotes is not protected.
func metaAuthError(r *handlers.Request, key, code string) error {
	if key != "_tribe_events_status" && key != "_tribe_events_status_reason" {
		return nil
	}
	if r.User.Can("edit_posts") {
		return nil
	}
	status := authCode(r)
	return &calendard.Error{Code: code, Message: fmt.Sprintf("Sorry, you are not allowed to edit the %s custom field.", key), Status: status,
		HasRawData: true, RawData: phpjson.Obj("key", key, "status", status)}
}

// metaTypeError is rest_invalid_type from rest_validate_value_from_schema with the status
// update_value adds: the param moves to additional_data.
func metaTypeError(param, typ string) *calendard.Error {
	return &calendard.Error{Code: "rest_invalid_type", Message: fmt.Sprintf("%s is not of type %s.", param, typ), Status: 400,
		Extra: []calendard.KV{{Key: "additional_data", Value: []any{phpjson.Obj("param", param)}}}}
}

var restDateRe = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+|,\d+)?(Z|[+-]\d{2}(?::\d{2})?)?$`)

// restParseDate is rest_parse_date: an RFC 3339 date (offset optional, read as UTC without one),
// as a time.
func restParseDate(s string) (time.Time, bool) {
	m := restDateRe.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	n := make([]int, 6)
	for i := range n {
		n[i], _ = strconv.Atoi(m[i+1])
	}
	loc := time.UTC
	if off := m[7]; off != "" && off != "Z" {
		sign := 1
		if off[0] == '-' {
			sign = -1
		}
		digits := strings.ReplaceAll(off[1:], ":", "")
		hh, _ := strconv.Atoi(digits[:2])
		mm := 0
		if len(digits) >= 4 {
			mm, _ = strconv.Atoi(digits[2:4])
		}
		loc = time.FixedZone("", sign*(hh*3600+mm*60))
	}
	// strtotime rolls day and time overflows into the next unit, as time.Date does.
	return time.Date(n[0], time.Month(n[1]), n[2], n[3], n[4], n[5], 0, loc), true
}

var restDateTZRe = regexp.MustCompile(`(Z|[+-]\d{2}(:\d{2})?)$`)

// restDateWithGMT is rest_get_date_with_gmt: the local and GMT database dates of a sent date. A date
// without an offset is site time (or GMT when utc).
func restDateWithGMT(site *calendard.Site, s string, utc bool) (local, gmt string, ok bool) {
	hasTZ := restDateTZRe.MatchString(s)
	t, ok := restParseDate(s)
	if !ok {
		return "", "", false
	}
	loc := site.Location
	if loc == nil {
		loc = time.UTC
	}
	if !utc && !hasTZ {
		// gmdate of the timestamp read as UTC: the wall clock sent, taken as site time.
		wall := t.Format(calendard.DBDateTime)
		return wall, gmtFromLocal(site, wall), true
	}
	g := t.UTC()
	return g.In(loc).Format(calendard.DBDateTime), g.Format(calendard.DBDateTime), true
}
