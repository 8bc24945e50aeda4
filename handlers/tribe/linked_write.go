package tribe

import (
	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
)

// Venue and organizer writes (POST /venues and /organizers, POST/PUT/PATCH/DELETE on /{id} and
// /by-slug/{slug}): Single_Venue / Single_Organizer create(), update() and delete(), and the
// insert() event writes use for venue/organizer data sent inline.

// create is POST /venues and /organizers: 201 with the record of the new post, or of the existing
// post with the same name the data was saved to instead.
func (h *linkedHandler) create(r *handlers.Request) (*handlers.Response, error) {
	data, err := h.postarr(r, r.Param, 0)
	if err != nil {
		return nil, err
	}
	var id int64
	err = handlers.Write(r, h.writer, func(tx calendard.WriteTx) error {
		var err error
		if id, err = calendard.CreateLinked(r.Context(), tx, r.Site, r.User, h.postType, data, true); err != nil {
			return err
		}
		if id == 0 {
			return h.couldNotCreate()
		}
		return nil
	})
	if err != nil {
		return nil, r.Unconfirmed(h.kind, id, err)
	}
	return h.written(r, id, 201)
}

// update is POST/PUT/PATCH /venues/{id}.
func (h *linkedHandler) update(r *handlers.Request) (*handlers.Response, error) {
	return h.updateID(r, php.Int(r.Value("id")))
}

// updateBySlug is POST/PUT/PATCH /venues/by-slug/{slug}.
func (h *linkedHandler) updateBySlug(r *handlers.Request) (*handlers.Response, error) {
	id, err := h.idOfSlug(r)
	if err != nil {
		return nil, err
	}
	return h.updateID(r, id)
}

func (h *linkedHandler) updateID(r *handlers.Request, id int64) (*handlers.Response, error) {
	data, err := h.postarr(r, r.Param, id)
	if err != nil {
		return nil, err
	}
	err = handlers.Write(r, h.writer, func(tx calendard.WriteTx) error {
		p, err := tx.LockPost(r.Context(), id)
		if err != nil {
			return err
		}
		if p == nil || p.Type != h.postType {
			return &calendard.Error{Code: "could-not-update-" + h.kind, Status: 400,
				Message: "The " + h.kind + " could not be updated"}
		}
		return calendard.UpdateLinked(r.Context(), tx, r.Site, r.User, h.postType, id, data)
	})
	if err != nil {
		return nil, r.Unconfirmed(h.kind, id, err)
	}
	return h.written(r, id, 200)
}

// delete is DELETE /venues/{id}: the post goes to the trash (there is no force delete).
func (h *linkedHandler) delete(r *handlers.Request) (*handlers.Response, error) {
	return h.trash(r, php.Int(r.Value("id")))
}

// deleteBySlug is DELETE /venues/by-slug/{slug}.
func (h *linkedHandler) deleteBySlug(r *handlers.Request) (*handlers.Response, error) {
	id, err := h.idOfSlug(r)
	if err != nil {
		return nil, err
	}
	return h.trash(r, id)
}

func (h *linkedHandler) trash(r *handlers.Request, id int64) (*handlers.Response, error) {
	err := handlers.Write(r, h.writer, func(tx calendard.WriteTx) error {
		p, err := tx.LockPost(r.Context(), id)
		if err != nil {
			return err
		}
		if p == nil || p.Type != h.postType {
			return &calendard.Error{Code: "could-not-delete-" + h.kind, Status: 500,
				Message: "The " + h.kind + " could not be deleted"}
		}
		if p.Status == "trash" {
			return &calendard.Error{Code: h.kind + "-is-in-trash", Status: 410,
				Message: "The " + h.kind + " is already trashed"}
		}
		_, err = calendard.TrashLinked(r.Context(), tx, r.Site, r.User, p)
		return err
	})
	if err != nil {
		return nil, r.Unconfirmed(h.kind, id, err)
	}
	return h.written(r, id, 200)
}

// idOfSlug resolves the by-slug path parameter (already validated to name a post of the type).
func (h *linkedHandler) idOfSlug(r *handlers.Request) (int64, error) {
	s, _ := r.Value("slug").(string)
	return h.postBySlugPath(r, s, h.postType)
}

// written answers with the record the plugin returns after a write (get_venue_data: no json_ld).
func (h *linkedHandler) written(r *handlers.Request, id int64, status int) (*handlers.Response, error) {
	return r.ReadBack(h.kind, id, func() (*handlers.Response, error) {
		posts, err := h.linked.LinkedPosts(r.Context(), []int64{id})
		if err != nil {
			return nil, err
		}
		if len(posts) == 0 {
			return nil, h.couldNotCreate()
		}
		return &handlers.Response{Status: status, Body: h.record(r, posts[0], false)}, nil
	})
}

func (h *linkedHandler) couldNotCreate() *calendard.Error {
	return &calendard.Error{Code: "could-not-create-" + h.kind, Status: 400,
		Message: "The " + h.kind + " could not be created from the provided data"}
}

// saveInline creates or reuses a venue/organizer from the data object an event write carries inline
// (Linked_Post_Base::insert for an object without "id"): the data must pass the create endpoint's
// parameter checks (else 400 rest_invalid_param on the event parameter named after the kind), then
// it is saved like POST /venues does, duplicates included (else could-not-create-venue/organizer).
// It runs inside the event's transaction and returns the post ID.
func (h *linkedHandler) saveInline(r *handlers.Request, tx calendard.WriteTx, data *phpjson.Object) (int64, error) {
	if data == nil || php.Empty(data) {
		return 0, nil
	}
	if idv, ok := data.Get("id"); ok && !php.Empty(idv) {
		// {"id": ID} links an existing post.
		if ok, err := h.isPostOfType(r, idv, h.postType); err != nil || !ok {
			if err != nil {
				return 0, err
			}
			return 0, &calendard.Error{Code: "invalid-linked-post-id", Status: 400, Message: "The provided linked post ID is not valid"}
		}
		return php.Int(idv), nil
	}
	if err := h.validLinkedEntry(r, h.postType, data); err != nil {
		if err != handlers.ErrInvalid {
			return 0, err
		}
		return 0, handlers.InvalidParams(phpjson.Obj(h.kind, "Invalid parameter."), phpjson.NewObject())
	}
	get := func(name string) (any, bool) {
		v, ok := data.Get(name)
		return v, ok && v != nil
	}
	// The inline request carries no "id" the endpoint would copy (an empty one is kept, as PHP does).
	arr, err := h.postarr(r, get, 0)
	if err != nil {
		return 0, err
	}
	id, err := calendard.CreateLinked(r.Context(), tx, r.Site, r.User, h.postType, arr, true)
	if err != nil {
		return 0, err
	}
	if id == 0 {
		return 0, h.couldNotCreate()
	}
	return id, nil
}

// postarr is the endpoint's prepare_postarr(): request values under the plugin's array keys, unset
// (null) ones left out. id is the post being updated (0 on create).
func (h *linkedHandler) postarr(r *handlers.Request, get func(string) (any, bool), id int64) (calendard.LinkedArray, error) {
	var a calendard.LinkedArray
	set := func(key string, v any, ok bool) {
		if ok && v != nil {
			a = append(a, calendard.KV{Key: key, Value: v})
		}
	}
	idKey := "VenueID"
	if h.postType == calendard.PostTypeOrganizer {
		idKey = "OrganizerID"
	}
	if id != 0 {
		set(idKey, id, true)
	} else if v, ok := get("id"); ok {
		set(idKey, v, true)
	}
	v, ok := get("author")
	set("post_author", v, ok)
	a = append(a, calendard.KV{Key: "post_date", Value: reformatDate(r, get, "date")})
	a = append(a, calendard.KV{Key: "post_date_gmt", Value: reformatDate(r, get, "date_utc")})
	status := ""
	if v, ok := get("status"); ok && !php.Empty(v) {
		status, _ = php.String(v)
	}
	a = append(a, calendard.KV{Key: "post_status", Value: calendard.ScaleBackStatus(r.User, status)})

	fields := []struct{ key, param string }{{"Organizer", "organizer"}, {"Description", "description"},
		{"Phone", "phone"}, {"Website", "website"}, {"Email", "email"}}
	if h.postType == calendard.PostTypeVenue {
		fields = []struct{ key, param string }{{"Venue", "venue"}, {"Description", "description"},
			{"Address", "address"}, {"City", "city"}, {"Country", "country"}, {"Province", "province"},
			{"State", "state"}, {"StateProvince", "stateprovince"}, {"Zip", "zip"}, {"Phone", "phone"},
			{"URL", "website"}}
	}
	for _, f := range fields {
		v, ok := get(f.param)
		set(f.key, v, ok)
	}
	img, err := h.uploadImage(r, get)
	if err != nil {
		return nil, err
	}
	a = append(a, calendard.KV{Key: "FeaturedImage", Value: img})
	if h.postType == calendard.PostTypeVenue {
		for _, f := range []struct{ key, param string }{{"ShowMap", "show_map"}, {"ShowMapLink", "show_map_link"}} {
			if v, ok := get(f.param); ok {
				flag := "false"
				if calendard.TribeIsTruthy(v) {
					flag = "1"
				}
				set(f.key, flag, true)
			}
		}
	}
	return a, nil
}

// reformatDate is the prepare_postarr date handling (postDate for "date", postDateGMT for
// "date_utc"); an unset or unparsable value gives false.
func reformatDate(r *handlers.Request, get func(string) (any, bool), param string) any {
	v, ok := get(param)
	if !ok {
		return false
	}
	conv := func(v any) (string, bool) { return postDate(r, v) }
	if param == "date_utc" {
		conv = func(v any) (string, bool) { return postDateGMT(r, v) }
	}
	if d, ok := conv(v); ok {
		return d
	}
	return false
}

// uploadImage is tribe_upload_image() for the "image" value: false when empty or unusable, the value
// itself when it names an attachment, the attachment ID for the URL of one already in the library
// (calendard does not download files).
func (l *lookups) uploadImage(r *handlers.Request, get func(string) (any, bool)) (any, error) {
	v, ok := get("image")
	if !ok || php.Empty(v) {
		return false, nil
	}
	if s, isStr := v.(string); isStr && !php.IsNumeric(s) {
		id, err := l.imageID(r, s)
		if err != nil || id == 0 {
			return false, err
		}
		return id, nil
	}
	if !php.IsNumeric(v) {
		return false, nil
	}
	p, err := l.posts.PostByID(r.Context(), php.Int(v))
	if err != nil || p == nil || p.Type != calendard.PostTypeAttach {
		return false, err
	}
	return v, nil
}

// linkedCreateChecks are the validate_callbacks of the create endpoint's parameters (required name
// first), which WP_REST_Request::has_valid_params applies to inline data.
func (l *lookups) linkedCreateChecks(postType string) (name string, checks map[string]func(*handlers.Request, any) error) {
	checks = map[string]func(*handlers.Request, any) error{
		"author": l.validUserID, "date": validTime, "date_utc": validTime, "description": validStringOrEmpty,
		"status": validPostStatus, "phone": validStringOrEmpty, "website": validURLOrEmpty,
		"image": l.validImageOrEmpty,
	}
	if postType == calendard.PostTypeVenue {
		for _, f := range []string{"address", "city", "country", "province", "state", "zip", "stateprovince"} {
			checks[f] = validStringOrEmpty
		}
		checks["venue"] = validString
		return "venue", checks
	}
	checks["email"] = validStringOrEmpty
	checks["organizer"] = validString
	return "organizer", checks
}

// validLinkedEntry is has_valid_params() of a venue/organizer data object against the create
// endpoint's parameters: the name is required and every non-null value passes its validator.
// Types are not checked (has_valid_params does not sanitize). errInvalid when it fails.
func (l *lookups) validLinkedEntry(r *handlers.Request, postType string, o *phpjson.Object) error {
	name, checks := l.linkedCreateChecks(postType)
	if v, ok := o.Get(name); !ok || v == nil {
		return handlers.ErrInvalid
	}
	for _, k := range o.Keys() {
		check := checks[k]
		v, _ := o.Get(k)
		if check == nil || v == nil {
			continue
		}
		if err := check(r, v); err != nil {
			if err == handlers.ErrInvalid {
				return handlers.ErrInvalid
			}
			if _, isWP := err.(*calendard.Error); isWP {
				return handlers.ErrInvalid
			}
			return err
		}
	}
	return nil
}

// validURLOrEmpty is is_url_or_empty with PHP's own FILTER_VALIDATE_URL rules.
func validURLOrEmpty(_ *handlers.Request, v any) error {
	if php.Empty(v) {
		return nil
	}
	if s, ok := php.String(v); ok && !php.IsArray(v) && php.FilterValidateURL(s) {
		return nil
	}
	return handlers.ErrInvalid
}

// validStringOrEmpty is is_string_or_empty: empty, or a non-empty string.
func validStringOrEmpty(r *handlers.Request, v any) error {
	if php.Empty(v) {
		return nil
	}
	return validString(r, v)
}

// validImageOrEmpty is is_image_or_empty.
func (l *lookups) validImageOrEmpty(r *handlers.Request, v any) error {
	if php.Empty(v) {
		return nil
	}
	return l.validImage(r, v)
}

// validLinkedID is is_venue_id / is_organizer_id for the {id} path parameter.
func (l *lookups) validLinkedID(postType string) func(*handlers.Request, any) error {
	return func(r *handlers.Request, v any) error {
		ok, err := l.isPostOfType(r, v, postType)
		if err != nil {
			return err
		}
		if !ok {
			return handlers.ErrInvalid
		}
		return nil
	}
}

// linkedPermission is the per-post edit_post/delete_post check of /venues/{id} and /organizers/{id}.
// Unlike the event routes there is no fallback for IDs that name no post: WordPress' map_meta_cap
// answers do_not_allow, which is what the Allow header of such a request shows.
func (h *linkedHandler) linkedPermission(action string) func(*handlers.Request) error {
	return func(r *handlers.Request) error {
		post, err := h.posts.PostByID(r.Context(), php.Int(r.Value("id")))
		if err != nil {
			return err
		}
		if post == nil {
			return calendard.ErrForbidden(r.User.LoggedIn())
		}
		return h.canPostID(r, h.postType, action, post.ID)
	}
}
