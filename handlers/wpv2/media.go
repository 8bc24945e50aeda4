package wpv2

import (
	"path"
	"strconv"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
	"github.com/calendard/calendard/internal/phpserial"
	"github.com/calendard/calendard/internal/wptext"
)

// GET /wp/v2/media and /wp/v2/media/<id>: WP_REST_Attachments_Controller, read-only. It is the
// posts controller (lists, permissions, links) for the attachment type with rest_base "media",
// its own fields, and the attachment rules of check_read_permission and get_post_status.

// postTypeAttachment is WordPress' media library post type.
const postTypeAttachment = "attachment"

// newCoreMedia is the attachments controller. Attachments carry the meta keys the plugin registers
// for every post type (core's footnotes is only for types with an editor).
func newCoreMedia(svc *coreServices) *corePosts {
	return &corePosts{svc: svc, postType: postTypeAttachment, base: "media", attachment: true, meta: eventCoreMeta}
}

// mediaRoutes are the attachments controller's two routes. Uploads, edits and deletes are
// registered (their methods belong in Allow and the index) but answer 501: calendard does not
// write media.
func mediaRoutes(svc *coreServices) []*handlers.Route {
	h := newCoreMedia(svc)
	return []*handlers.Route{
		{Path: "/media", Endpoints: []*handlers.Endpoint{
			{Methods: []string{"GET"}, Args: h.collectionArgs(), Permission: h.listPermission, Handler: h.list},
			{Methods: []string{"POST"}, Permission: mediaCreatePermission, Handler: notYet},
		}},
		{Path: `/media/(?P<id>[\d]+)`, Endpoints: []*handlers.Endpoint{
			{Methods: []string{"GET"}, Args: []*handlers.Arg{coreIDArg(), coreContextArg()}, Permission: h.readPermission, Handler: h.mediaGet},
			{Methods: []string{"POST", "PUT", "PATCH"}, Args: []*handlers.Arg{coreIDArg()}, Permission: h.editPermission, Handler: notYet},
			{Methods: []string{"DELETE"}, Args: []*handlers.Arg{coreIDArg(), coreTyped("force", "boolean", "Whether to bypass Trash and force deletion.", false)},
				Permission: h.deletePermission, Handler: notYet},
		}},
	}
}

// mediaCreatePermission is create_item_permissions_check: the type's create_posts (upload_files
// for attachments), then upload_files again with the controller's own message.
func mediaCreatePermission(r *handlers.Request) error {
	if !r.User.Can("upload_files") {
		return &calendard.Error{Code: "rest_cannot_create", Message: "Sorry, you are not allowed to create posts as this user.", Status: authCode(r)}
	}
	return nil
}

// mediaTypeArgs are the attachments controller's media_type and mime_type filters. They are
// resolved against WordPress' table of allowed MIME types (get_allowed_mime_types), which calendard
// does not carry, so a request that uses them is answered 501 rather than with an unfiltered list.
func mediaTypeArgs() []*handlers.Arg {
	return []*handlers.Arg{
		handlers.SchemaArg("media_type", false, handlers.Schema("default", nil, "description", "Limit result set to attachments of a particular media type or media types.",
			"type", "array", "items", handlers.Schema("type", "string", "enum", handlers.StrList("image", "video", "text", "application", "audio"))), nil),
		handlers.SchemaArg("mime_type", false, handlers.Schema("default", nil, "description", "Limit result set to attachments of a particular MIME type or MIME types.",
			"type", "array", "items", handlers.Schema("type", "string")), nil),
	}
}

// mediaGet is GET /wp/v2/media/<id>, with the rel="alternate" Link of a viewable type.
func (h *corePosts) mediaGet(r *handlers.Request) (*handlers.Response, error) {
	p, err := h.post(r)
	if err != nil {
		return nil, err
	}
	resp := handlers.Ok(h.mediaItem(r, p, viewContext(r)))
	resp.Header("Link", "<"+h.svc.attachmentLink(r, p.Post)+`>; rel="alternate"; type=text/html`)
	return resp, nil
}

// attachmentParent is the attachment's parent post when it has one that exists (not itself).
func (c *coreServices) attachmentParent(r *handlers.Request, p *calendard.Post) *calendard.Post {
	if p.Parent <= 0 || p.Parent == p.ID {
		return nil
	}
	if parent := c.corePost(r, p.Parent); parent != nil {
		return parent.Post
	}
	return nil
}

// postStatus is get_post_status: an attachment inheriting its status has its parent's (the status
// the parent had before it was trashed), or publish when unattached.
func (c *coreServices) postStatus(r *handlers.Request, p *calendard.Post) string {
	if p.Type != postTypeAttachment || p.Status != "inherit" {
		return p.Status
	}
	parent := c.attachmentParent(r, p)
	if parent == nil {
		return "publish"
	}
	if parent.Status == "trash" {
		if s := parent.Meta.Value("_wp_trash_meta_status"); s != "" {
			return s
		}
		return "publish"
	}
	return c.postStatus(r, parent)
}

// attachmentLink is get_attachment_link: under the parent's permalink when attached (and the
// parent's link has no query string), else at the site root, with pretty permalinks; else
// ?attachment_id=. Parents of the calendar's types only: calendard builds no permalinks of posts
// or pages, whose attachments get the unattached form.
func (c *coreServices) attachmentLink(r *handlers.Request, p *calendard.Post) string {
	if !r.Site.PrettyPermalinks {
		return r.Site.HomeURL + "/?attachment_id=" + strconv.FormatInt(p.ID, 10)
	}
	if parent := c.attachmentParent(r, p); parent != nil && isCalendarType(parent.Type) {
		link := r.Permalink(parent)
		if strings.Contains(link, "?") {
			return r.Site.HomeURL + "/?attachment_id=" + strconv.FormatInt(p.ID, 10)
		}
		name := p.Name
		if _, err := strconv.ParseFloat(name, 64); err == nil {
			name = "attachment/" + name
		}
		return strings.TrimRight(link, "/") + "/" + name + "/"
	}
	return r.Site.HomeURL + "/" + p.Name + "/"
}

// mediaItem is the attachments controller's prepare_item_for_response: the posts controller's
// fields of an attachment (its schema has no content, excerpt or password), then its own.
func (h *corePosts) mediaItem(r *handlers.Request, cp *calendard.CorePost, ctx string) *phpjson.Object {
	p := cp.Post
	edit, embed := ctx == "edit", ctx == "embed"
	savedID := r.Render.PostID
	r.Render.PostID = int(p.ID)
	defer func() { r.Render.PostID = savedID }()
	o := phpjson.NewObject()
	postHead(r, o, p, ctx, h.svc.attachmentLink(r, p), false)
	o.Set("author", p.Author)
	o.Set("featured_media", php.Int(p.Meta.Value("_thumbnail_id")))
	if !embed {
		o.Set("comment_status", p.CommentStatus)
		o.Set("ping_status", p.PingStatus)
		o.Set("template", p.Meta.Value("_wp_page_template"))
		o.Set("meta", h.metaObject(p))
		if edit {
			o.Set("permalink_template", r.Site.HomeURL+"/%pagename%/")
			o.Set("generated_slug", wptext.SanitizeTitle(p.Title))
		}
		o.Set("class_list", h.classList(cp, false))
		desc := phpjson.NewObject()
		if edit {
			desc.Set("raw", p.Content)
		}
		desc.Set("rendered", wptext.TheContent(p.Content, r.Render))
		o.Set("description", desc)
	}
	caption := phpjson.NewObject()
	if edit {
		caption.Set("raw", p.Excerpt)
	}
	caption.Set("rendered", theExcerpt(r, p))
	o.Set("caption", caption)
	o.Set("alt_text", p.Meta.Value("_wp_attachment_image_alt"))
	file := p.Meta.Value("_wp_attached_file")
	mediaType := "file"
	if attachmentIsImage(p, file) {
		mediaType = "image"
	}
	o.Set("media_type", mediaType)
	o.Set("mime_type", p.MimeType)
	url := attachmentFileURL(r, p, file)
	o.Set("media_details", mediaDetails(r, p, url, mediaType == "image"))
	if !embed {
		if p.Parent != 0 {
			o.Set("post", p.Parent)
		} else {
			o.Set("post", nil)
		}
	}
	o.Set("source_url", url)
	o.Set("_links", h.links(r, cp, edit))
	return o
}

// attachmentFileURL is wp_get_attachment_url: the file's URL under the uploads, else the GUID.
func attachmentFileURL(r *handlers.Request, p *calendard.Post, file string) string {
	if file != "" {
		return r.UploadURL(file)
	}
	return r.SSLFrontEnd(p.GUID) // wp_get_attachment_url's GUID fallback takes the https step too
}

// imageExts are the extensions wp_attachment_is counts as images for a MIME type of "import".
var imageExts = map[string]bool{"jpg": true, "jpeg": true, "jpe": true, "gif": true, "png": true, "webp": true,
	"heic": true, "heif": true, "avif": true}

// attachmentIsImage is wp_attachment_is_image: an attached file, and an image/ MIME type (or an
// image extension on an imported file).
func attachmentIsImage(p *calendard.Post, file string) bool {
	if file == "" {
		return false
	}
	if strings.HasPrefix(p.MimeType, "image/") {
		return true
	}
	return p.MimeType == "import" && imageExts[strings.ToLower(strings.TrimPrefix(path.Ext(file), "."))]
}

// isCalendarType says whether calendard builds permalinks of the post type.
func isCalendarType(t string) bool {
	return t == calendard.PostTypeEvent || t == calendard.PostTypeVenue || t == calendard.PostTypeOrganizer
}

// mediaDetails is wp_get_attachment_metadata as the controller shows it: {} when empty; each
// intermediate size with mime-type renamed mime_type and the source_url image_downsize gives it,
// then the "full" size; sizes {} when there are none.
func mediaDetails(r *handlers.Request, p *calendard.Post, url string, isImage bool) any {
	mv, err := phpserial.Unmarshal(p.Meta.Value("_wp_attachment_metadata"))
	meta, isArr := mv.(*phpserial.Array)
	if err != nil || !isArr || meta.Len() == 0 {
		return phpjson.Raw("{}")
	}
	o, isObj := handlers.SerialToJSON(meta).(*phpjson.Object)
	if !isObj {
		// A list-shaped array becomes an object once "sizes" is added.
		o = phpjson.NewObject()
		for _, e := range meta.Entries() {
			o.Set(handlers.KeyString(e.Key), handlers.SerialToJSON(e.Value))
		}
	}
	sizes, _ := meta.Get("sizes")
	sizeArr, _ := sizes.(*phpserial.Array)
	if sizeArr == nil || sizeArr.Len() == 0 {
		o.Set("sizes", phpjson.Raw("{}"))
		return o
	}
	out := phpjson.NewObject()
	for _, e := range sizeArr.Entries() {
		name := handlers.KeyString(e.Key)
		size, ok := e.Value.(*phpserial.Array)
		if !ok {
			out.Set(name, handlers.SerialToJSON(e.Value))
			continue
		}
		so := phpjson.NewObject()
		var mime any
		hasMime := false
		for _, se := range size.Entries() {
			if k := handlers.KeyString(se.Key); k == "mime-type" {
				mime, hasMime = handlers.SerialToJSON(se.Value), true
			} else {
				so.Set(k, handlers.SerialToJSON(se.Value))
			}
		}
		if hasMime {
			so.Set("mime_type", mime)
		}
		if src, _, _, ok := imageDownsize(meta, url, isImage, name); ok {
			so.Set("source_url", src)
		}
		out.Set(name, so)
	}
	if src, w, h, ok := imageDownsize(meta, url, isImage, "full"); ok {
		out.Set("full", phpjson.Obj("file", path.Base(src), "width", w, "height", h, "mime_type", p.MimeType, "source_url", src))
	}
	o.Set("sizes", out)
	return o
}

// imageDownsize is image_downsize for a named size (the width and height are what
// image_constrain_size_for_editor leaves of them for "full": unchanged): a file that is not an
// image only through its "full" size; the size's file in place of the URL's base name; the
// original's dimensions when the size has none.
func imageDownsize(meta *phpserial.Array, url string, isImage bool, size string) (string, int64, int64, bool) {
	base := path.Base(url)
	sizes, _ := meta.Get("sizes")
	sizeArr, _ := sizes.(*phpserial.Array)
	sizeOf := func(name string) *phpserial.Array {
		if sizeArr == nil {
			return nil
		}
		v, _ := sizeArr.Get(name)
		a, _ := v.(*phpserial.Array)
		if a == nil || a.Len() == 0 {
			return nil
		}
		return a
	}
	field := func(a *phpserial.Array, k string) any {
		v, _ := a.Get(k)
		return v
	}
	var w, h int64
	if !isImage {
		full := sizeOf("full")
		if full == nil {
			return "", 0, 0, false
		}
		file, _ := php.String(field(full, "file"))
		url, base = strings.ReplaceAll(url, base, file), file
		w, h = php.Int(field(full, "width")), php.Int(field(full, "height"))
	}
	if s := sizeOf(size); s != nil {
		file, _ := php.String(field(s, "file"))
		url = strings.ReplaceAll(url, base, file)
		w, h = php.Int(field(s, "width")), php.Int(field(s, "height"))
	}
	if w == 0 && h == 0 {
		mw, hasW := meta.Get("width")
		mh, hasH := meta.Get("height")
		if hasW && hasH {
			w, h = php.Int(mw), php.Int(mh)
		}
	}
	return url, w, h, url != ""
}
