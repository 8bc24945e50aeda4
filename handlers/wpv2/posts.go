package wpv2

import (
	"encoding/json"
	"net/url"
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

// corePosts serves one of the calendar's post types under WordPress core's wp/v2 namespace
// (WP_REST_Posts_Controller as the plugin registers its types: rest_base = the post type name).
type corePosts struct {
	svc      *coreServices
	postType string
	// base is the rest_base: the post type's name for the plugin's types, "media" for attachments.
	base string
	// attachment: the attachments controller (its own fields, no revisions, comments allowed).
	attachment bool
	// viewable types (events) get class_list, permalink_template, generated_slug and the
	// rel="alternate" Link header; venues and organizers are not publicly queryable.
	viewable bool
	// taxonomies shown in REST, in registration order, with their rest_base.
	taxonomies []coreTaxonomy
	meta       []coreMetaKey
}

type coreTaxonomy struct{ name, base string }

// coreMetaKey is one meta key the plugin registers with show_in_rest.
type coreMetaKey struct {
	key   string
	typ   string // "string", "boolean", or "integer[]" (multiple rows of integers)
	multi bool
}

var eventCoreMeta = func() []coreMetaKey {
	var out []coreMetaKey
	add := func(typ string, keys ...string) {
		for _, k := range keys {
			out = append(out, coreMetaKey{key: k, typ: typ})
		}
	}
	add("boolean", "_EventAllDay")
	add("string", "_EventTimezone", "_EventStartDate", "_EventEndDate", "_EventStartDateUTC", "_EventEndDateUTC")
	add("boolean", "_EventShowMap", "_EventShowMapLink")
	add("string", "_EventURL", "_EventCost", "_EventCostDescription", "_EventCurrencySymbol", "_EventCurrencyCode",
		"_EventCurrencyPosition", "_EventDateTimeSeparator", "_EventTimeRangeSeparator")
	out = append(out, coreMetaKey{key: "_EventOrganizerID", typ: "integer", multi: true},
		coreMetaKey{key: "_EventVenueID", typ: "integer", multi: true})
	add("string", "_OrganizerEmail", "_OrganizerPhone", "_OrganizerWebsite", "_VenueAddress", "_VenueCity",
		"_VenueCountry", "_VenueProvince", "_VenueState", "_VenueZip", "_VenuePhone", "_VenueURL",
		"_VenueStateProvince", "_VenueLat", "_VenueLng")
	add("boolean", "_VenueShowMap", "_VenueShowMapLink")
	return out
}()

// coreMetaFor is the registered meta of a post type: the plugin registers the event status keys
// for events only; core registers "footnotes" last.
func coreMetaFor(postType string) []coreMetaKey {
	out := append([]coreMetaKey(nil), eventCoreMeta...)
	if postType == calendard.PostTypeEvent {
		out = append(out, coreMetaKey{key: "_tribe_events_status", typ: "string"}, coreMetaKey{key: "_tribe_events_status_reason", typ: "string"})
	}
	return append(out, coreMetaKey{key: "footnotes", typ: "string"})
}

func newCorePosts(postType string, svc *coreServices) *corePosts {
	cp := &corePosts{svc: svc, postType: postType, base: postType, meta: coreMetaFor(postType)}
	if postType == calendard.PostTypeEvent {
		cp.viewable = true
		cp.taxonomies = []coreTaxonomy{{calendard.TaxonomyTag, "tags"}, {calendard.TaxonomyCategory, calendard.TaxonomyCategory}}
	}
	return cp
}

// errPostInvalidID is WP_REST_Posts_Controller::get_post's error.
var errPostInvalidID = &calendard.Error{Code: "rest_post_invalid_id", Message: "Invalid post ID.", Status: 404}

// authCode is rest_authorization_required_code().
func authCode(r *handlers.Request) int {
	if r.User.LoggedIn() {
		return 403
	}
	return 401
}

// post is get_post(): the post of this type with the route's ID, or rest_post_invalid_id.
func (h *corePosts) post(r *handlers.Request) (*calendard.CorePost, error) {
	id := php.Int(r.Value("id"))
	if id <= 0 {
		return nil, errPostInvalidID
	}
	return h.byID(r, id)
}

// ref is the post as map_meta_cap sees it.
func ref(r *handlers.Request, p *calendard.Post) (*calendard.PostRef, error) {
	ref := &calendard.PostRef{ID: p.ID, Type: p.Type, Status: p.Status, Author: p.Author}
	if p.Status == "trash" {
		ref.TrashedFrom = p.Meta.Value("_wp_trash_meta_status")
	}
	return ref, nil
}

func canEdit(r *handlers.Request, p *calendard.Post) bool {
	ref, _ := ref(r, p)
	return r.User.CanEditPost(ref)
}

func canDelete(r *handlers.Request, p *calendard.Post) bool {
	ref, _ := ref(r, p)
	return r.User.CanDeletePost(ref)
}

// canReadCore is check_read_permission: published, or read_post (which sees an attachment's
// inherited status); an inheriting post is readable when its parent is, or when it has none.
func (c *coreServices) canReadCore(r *handlers.Request, p *calendard.Post) bool {
	return c.canReadDepth(r, p, 0)
}

func (c *coreServices) canReadDepth(r *handlers.Request, p *calendard.Post, depth int) bool {
	if p.Status == "publish" {
		return true
	}
	ref, _ := ref(r, p)
	if p.Status == "inherit" {
		ref.Status = c.postStatus(r, p)
	}
	if r.User.CanReadPost(ref) {
		return true
	}
	if p.Status != "inherit" {
		return false
	}
	if p.Parent > 0 && depth < 8 {
		if parent := c.corePost(r, p.Parent); parent != nil {
			return c.canReadDepth(r, parent.Post, depth+1)
		}
	}
	return true
}

// context is the request's context parameter (view by default).
func viewContext(r *handlers.Request) string {
	if s, ok := r.Value("context").(string); ok && s != "" {
		return s
	}
	return "view"
}

// readPermission is get_item_permissions_check.
func (h *corePosts) readPermission(r *handlers.Request) error {
	p, err := h.post(r)
	if err != nil {
		return err
	}
	if viewContext(r) == "edit" && !canEdit(r, p.Post) {
		return &calendard.Error{Code: "rest_forbidden_context", Message: "Sorry, you are not allowed to edit this post.", Status: authCode(r)}
	}
	if pw, ok := r.QueryParams().Get("password"); ok && !php.Empty(pw) {
		if s, _ := pw.(string); s != p.Password {
			return &calendard.Error{Code: "rest_post_incorrect_password", Message: "Incorrect post password.", Status: 403}
		}
	}
	if !h.svc.canReadCore(r, p.Post) {
		return calendard.ErrForbidden(r.User.LoggedIn())
	}
	return nil
}

// deletePermission is delete_item_permissions_check.
func (h *corePosts) deletePermission(r *handlers.Request) error {
	p, err := h.post(r)
	if err != nil {
		return err
	}
	if !canDelete(r, p.Post) {
		return &calendard.Error{Code: "rest_cannot_delete", Message: "Sorry, you are not allowed to delete this post.", Status: authCode(r)}
	}
	return nil
}

// editPermission is the edit_post part of update_item_permissions_check (updatePermission, and
// the Allow header and targetHints).
func (h *corePosts) editPermission(r *handlers.Request) error {
	p, err := h.post(r)
	if err != nil {
		return err
	}
	if !canEdit(r, p.Post) {
		return &calendard.Error{Code: "rest_cannot_edit", Message: "Sorry, you are not allowed to edit this post.", Status: authCode(r)}
	}
	return nil
}

// get is GET /wp/v2/<type>/<id>.
func (h *corePosts) get(r *handlers.Request) (*handlers.Response, error) {
	p, err := h.post(r)
	if err != nil {
		return nil, err
	}
	resp := handlers.Ok(h.item(r, p, viewContext(r), true))
	if h.viewable {
		resp.Header("Link", "<"+r.Permalink(p.Post)+`>; rel="alternate"; type=text/html`)
	}
	return resp, nil
}

// delete is DELETE /wp/v2/<type>/<id>: the trash, or with force=true wp_delete_post.
func (h *corePosts) delete(r *handlers.Request) (*handlers.Response, error) {
	p, err := h.post(r)
	if err != nil {
		return nil, err
	}
	force := handlers.RestBool(r.Value("force"))
	if force {
		previous := h.item(r, p, "edit", false)
		err := handlers.Write(r, h.svc.writer, func(tx calendard.WriteTx) error { return calendard.DeletePost(r.Context(), tx, p.ID) })
		if err != nil {
			return nil, err
		}
		return handlers.Ok(phpjson.Obj("deleted", true, "previous", previous)), nil
	}
	if p.Status == "trash" {
		return nil, &calendard.Error{Code: "rest_already_trashed", Message: "The post has already been deleted.", Status: 410}
	}
	err = handlers.Write(r, h.svc.writer, func(tx calendard.WriteTx) error {
		if h.postType == calendard.PostTypeEvent {
			return calendard.TrashEvent(r.Context(), tx, r.Site, r.User, p.ID)
		}
		locked, err := tx.LockPost(r.Context(), p.ID)
		if err != nil {
			return err
		}
		if locked == nil || locked.Status == "trash" {
			return &calendard.Error{Code: "rest_already_trashed", Message: "The post has already been deleted.", Status: 410}
		}
		_, err = calendard.TrashLinked(r.Context(), tx, r.Site, r.User, locked)
		return err
	})
	if err == calendard.ErrEventInTrash {
		err = &calendard.Error{Code: "rest_already_trashed", Message: "The post has already been deleted.", Status: 410}
	}
	if err != nil {
		return nil, err
	}
	if p, err = h.post(r); err != nil {
		return nil, err
	}
	return handlers.Ok(h.item(r, p, "edit", true)), nil
}

// restDate is mysql_to_rfc3339.
func restDate(v string) string {
	return strings.Replace(v, " ", "T", 1)
}

// gmtFromLocal is get_gmt_from_date for a site-local DB datetime.
func gmtFromLocal(site *calendard.Site, local string) string {
	loc := site.Location
	if loc == nil {
		loc = time.UTC
	}
	t, err := time.ParseInLocation(time.DateTime, local, loc)
	if err != nil {
		return "1970-01-01 00:00:00"
	}
	return t.UTC().Format(time.DateTime)
}

// item is prepare_item_for_response in a context; links adds _links as the response does (the
// "previous" of a permanent delete is the data alone).
func (h *corePosts) item(r *handlers.Request, cp *calendard.CorePost, ctx string, links bool) *phpjson.Object {
	if h.attachment {
		return h.mediaItem(r, cp, ctx)
	}
	p := cp.Post
	edit, embed := ctx == "edit", ctx == "embed"
	// Shortcodes see the post as the global $post (setup_postdata): "audio-<ID>-<n>".
	savedID := r.Render.PostID
	r.Render.PostID = int(p.ID)
	defer func() { r.Render.PostID = savedID }()
	canEdit := canEdit(r, p)
	o := phpjson.NewObject()
	postHead(r, o, p, ctx, r.Permalink(p), true)

	// can_access_password_content: editors in the edit context, or the right ?password=.
	protected := p.Password != ""
	readable := !protected || (edit && canEdit)
	if protected && !readable {
		if pw, _ := r.Value("password").(string); pw != "" && pw == p.Password {
			readable = true
		}
	}
	if !embed {
		content := phpjson.NewObject()
		if edit {
			content.Set("raw", p.Content)
		}
		rendered := ""
		if readable {
			rendered = wptext.TheContent(p.Content, r.Render)
		}
		content.Set("rendered", rendered)
		content.Set("protected", protected)
		if edit {
			bv := 0
			if strings.Contains(p.Content, "<!-- wp:") {
				bv = 1
			}
			content.Set("block_version", bv)
		}
		o.Set("content", content)
	}
	excerpt := phpjson.NewObject()
	if edit {
		excerpt.Set("raw", p.Excerpt)
	}
	rendered := ""
	if readable {
		// excerpt_length overrides the excerpt_length filter while the excerpt is made (any
		// request carrying it; the single route checks it is an integer).
		if v, has := r.Param("excerpt_length"); has {
			n, saved := int(php.Int(v)), r.Render.ExcerptLength
			r.Render.ExcerptLength = &n
			rendered = theExcerpt(r, p)
			r.Render.ExcerptLength = saved
		} else {
			rendered = theExcerpt(r, p)
		}
	}
	excerpt.Set("rendered", rendered)
	excerpt.Set("protected", protected)
	o.Set("excerpt", excerpt)
	o.Set("author", p.Author)
	o.Set("featured_media", php.Int(p.Meta.Value("_thumbnail_id")))
	if !embed {
		o.Set("template", p.Meta.Value("_wp_page_template"))
		o.Set("meta", h.metaObject(p))
		for _, tax := range h.taxonomies {
			ids := []any{}
			for _, t := range cp.Terms[tax.name] {
				ids = append(ids, t.ID)
			}
			o.Set(tax.base, ids)
		}
		if h.viewable {
			if edit {
				o.Set("permalink_template", r.Site.HomeURL+"/"+r.Site.EventSlug+"/%pagename%/")
				o.Set("generated_slug", h.generatedSlug(r, p))
			}
			// post_password_required without the REST filter (prepare_item_for_response removes
			// it before the classes are built): any password-protected post gets the class.
			o.Set("class_list", h.classList(cp, protected))
		}
	}
	if links {
		o.Set("_links", h.links(r, cp, edit))
	}
	return o
}

// theExcerpt is the excerpt through get_the_excerpt (wp_trim_excerpt makes one from the content
// when there is none) and the_excerpt.
func theExcerpt(r *handlers.Request, p *calendard.Post) string {
	text := p.Excerpt
	if text == "" {
		text = wptext.TrimExcerpt(p.Content, r.Render)
	}
	return wptext.TheExcerpt(text, r.Render)
}

// postHead sets the fields every post type's answer starts with, in prepare_item_for_response's
// order: id, dates, guid, password (types whose schema keeps it), slug, status, type, link, title.
func postHead(r *handlers.Request, o *phpjson.Object, p *calendard.Post, ctx, link string, password bool) {
	edit, embed := ctx == "edit", ctx == "embed"
	o.Set("id", p.ID)
	o.Set("date", restDate(p.Date))
	if !embed {
		gmt := p.DateGMT
		if gmt == calendard.ZeroDate {
			gmt = gmtFromLocal(r.Site, p.Date)
		}
		o.Set("date_gmt", restDate(gmt))
		guid := phpjson.Obj("rendered", p.GUID)
		if edit {
			guid.Set("raw", p.GUID)
		}
		o.Set("guid", guid)
		o.Set("modified", restDate(p.Modified))
		mgmt := p.ModifiedGMT
		if mgmt == calendard.ZeroDate {
			mgmt = gmtFromLocal(r.Site, p.Modified)
		}
		o.Set("modified_gmt", restDate(mgmt))
	}
	if edit && password {
		o.Set("password", p.Password)
	}
	o.Set("slug", p.Name)
	if !embed {
		o.Set("status", p.Status)
	}
	o.Set("type", p.Type)
	o.Set("link", link)
	title := phpjson.NewObject()
	if edit {
		title.Set("raw", p.Title)
	}
	title.Set("rendered", wptext.Title(p.Title))
	o.Set("title", title)
}

// generatedSlug is get_sample_permalink($id, $title, ”)'s slug: the sanitized title made unique
// among the type's other posts by wp_unique_post_slug (drafts and pending posts keep it as is),
// shown decoded.
func (h *corePosts) generatedSlug(r *handlers.Request, p *calendard.Post) string {
	base := wptext.SanitizeTitle(p.Title)
	slug := base
	switch p.Status {
	case "draft", "pending", "auto-draft":
	default:
		for n := 2; ; n++ {
			taken, err := h.svc.posts.PostsByName(r.Context(), slug, p.Type)
			if err != nil {
				break // the slug is shown as is; the answer does not depend on it elsewhere
			}
			other := false
			for _, q := range taken {
				if q.ID != p.ID {
					other = true
				}
			}
			if !other {
				break
			}
			slug = base + "-" + strconv.Itoa(n)
		}
	}
	if dec, err := url.PathUnescape(slug); err == nil {
		return dec
	}
	return slug
}

var htmlClassPercent = regexp.MustCompile(`%[a-fA-F0-9][a-fA-F0-9]`)
var htmlClassBad = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// sanitizeHTMLClass is sanitize_html_class with a fallback.
func sanitizeHTMLClass(s, fallback string) string {
	s = htmlClassBad.ReplaceAllString(htmlClassPercent.ReplaceAllString(s, ""), "")
	if s == "" {
		return fallback
	}
	return s
}

// classList is get_post_class with the plugin's "cat_<slug>" classes appended.
func (h *corePosts) classList(cp *calendard.CorePost, passwordRequired bool) []any {
	p := cp.Post
	out := []any{"post-" + strconv.FormatInt(p.ID, 10), p.Type, "type-" + p.Type, "status-" + p.Status}
	if passwordRequired {
		out = append(out, "post-password-required")
	}
	if php.Int(p.Meta.Value("_thumbnail_id")) > 0 {
		out = append(out, "has-post-thumbnail")
	}
	out = append(out, "hentry")
	termClass := func(t *calendard.Term) string {
		c := sanitizeHTMLClass(t.Slug, strconv.FormatInt(t.ID, 10))
		if _, err := strconv.ParseFloat(c, 64); err == nil || strings.Trim(c, "-") == "" {
			c = strconv.FormatInt(t.ID, 10)
		}
		return c
	}
	for _, t := range cp.Terms[calendard.TaxonomyTag] {
		out = append(out, "tag-"+termClass(t))
	}
	for _, t := range cp.Terms[calendard.TaxonomyCategory] {
		out = append(out, sanitizeHTMLClass(calendard.TaxonomyCategory+"-"+termClass(t), calendard.TaxonomyCategory+"-"+strconv.FormatInt(t.ID, 10)))
	}
	for _, t := range cp.Terms[calendard.TaxonomyCategory] {
		out = append(out, "cat_"+sanitizeHTMLClass(t.Slug, strconv.FormatInt(t.ID, 10)))
	}
	// The plugin's event status classes (Event_Status\Template_Modifications::get_post_classes).
	if st := p.Meta.Value("_tribe_events_status"); st != "" && p.Type == calendard.PostTypeEvent {
		out = append(out, "tribe-events-status__list-event-"+sanitizeHTMLClass(st, ""))
	}
	return out
}

// metaObject is WP_REST_Meta_Fields::get_value over the registered keys.
func (h *corePosts) metaObject(p *calendard.Post) *phpjson.Object {
	o := phpjson.NewObject()
	for _, k := range h.meta {
		if k.multi {
			vals := []any{}
			for _, v := range p.Meta[k.key] {
				vals = append(vals, prepareMetaValue(v, k.typ))
			}
			o.Set(k.key, vals)
			continue
		}
		v, has := p.Meta.Get(k.key)
		if !has {
			if k.typ == "boolean" {
				o.Set(k.key, false)
			} else {
				o.Set(k.key, "")
			}
			continue
		}
		o.Set(k.key, prepareMetaValue(v, k.typ))
	}
	return o
}

// prepareMetaValue is WP_REST_Meta_Fields::prepare_value: "" is the type's empty value, anything
// the schema refuses is null.
func prepareMetaValue(v, typ string) any {
	switch typ {
	case "boolean":
		if v == "" {
			return false
		}
		if !handlers.IsRESTBoolean(v) {
			return nil
		}
		return handlers.RestBool(v)
	case "integer":
		if v == "" {
			return 0
		}
		if !handlers.IsRESTInteger(v) {
			return nil
		}
		return json.Number(strconv.FormatInt(php.Int(v), 10))
	}
	return v
}

// links is prepare_links plus the available actions of the edit context and the self link's
// targetHints, as the response carries them.
func (h *corePosts) links(r *handlers.Request, cp *calendard.CorePost, edit bool) *phpjson.Object {
	p := cp.Post
	self := handlers.RestURL(r.Site, "/wp/v2/"+h.base+"/"+strconv.FormatInt(p.ID, 10))
	allow := []any{"GET"}
	if canEdit(r, p) {
		allow = append(allow, "POST", "PUT", "PATCH")
	}
	if canDelete(r, p) {
		allow = append(allow, "DELETE")
	}
	l := phpjson.NewObject()
	l.Set("self", []any{phpjson.Obj("href", self, "targetHints", phpjson.Obj("allow", allow))})
	l.Set("collection", []any{phpjson.Obj("href", handlers.RestURL(r.Site, "/wp/v2/"+h.base))})
	l.Set("about", []any{phpjson.Obj("href", handlers.RestURL(r.Site, "/wp/v2/types/"+h.postType))})
	if p.Author != 0 {
		l.Set("author", []any{phpjson.Obj("embeddable", true, "href", handlers.RestURL(r.Site, "/wp/v2/users/"+strconv.FormatInt(p.Author, 10)))})
	}
	if h.attachment {
		// Attachments support comments and no revisions.
		l.Set("replies", []any{phpjson.Obj("embeddable", true, "href", withID(handlers.RestURL(r.Site, "/wp/v2/comments"), "post", p.ID))})
	} else {
		revBase := "/wp/v2/" + h.postType + "/" + strconv.FormatInt(p.ID, 10) + "/revisions"
		l.Set("version-history", []any{phpjson.Obj("count", cp.Revisions, "href", handlers.RestURL(r.Site, revBase))})
		if cp.Revisions > 0 {
			l.Set("predecessor-version", []any{phpjson.Obj("id", cp.LatestRevision,
				"href", handlers.RestURL(r.Site, revBase+"/"+strconv.FormatInt(cp.LatestRevision, 10)))})
		}
	}
	if thumb := php.Int(p.Meta.Value("_thumbnail_id")); thumb > 0 {
		l.Set("wp:featuredmedia", []any{phpjson.Obj("embeddable", true, "href", handlers.RestURL(r.Site, "/wp/v2/media/"+strconv.FormatInt(thumb, 10)))})
	}
	if !h.attachment {
		l.Set("wp:attachment", []any{phpjson.Obj("href", withID(handlers.RestURL(r.Site, "/wp/v2/media"), "parent", p.ID))})
	}
	if len(h.taxonomies) > 0 {
		terms := []any{}
		for _, tax := range h.taxonomies {
			terms = append(terms, phpjson.Obj("taxonomy", tax.name, "embeddable", true,
				"href", withID(handlers.RestURL(r.Site, "/wp/v2/"+tax.base), "post", p.ID)))
		}
		l.Set("wp:term", terms)
	}
	if edit {
		for _, rel := range h.actions(r) {
			l.Set("wp:action-"+rel, []any{phpjson.Obj("href", self)})
		}
	}
	// get_compact_response_links adds the curie only when a relation uses it.
	for _, k := range l.Keys() {
		if strings.HasPrefix(k, "wp:") {
			l.Set("curies", []any{phpjson.Obj("name", "wp", "href", "https://api.w.org/{rel}", "templated", true)})
			break
		}
	}
	return l
}

// withID is add_query_arg(key, id, url).
func withID(u, key string, id int64) string {
	return handlers.AddQueryArg(u, []calendard.KV{{Key: key, Value: strconv.FormatInt(id, 10)}})
}

// actions is get_available_actions for the edit context.
func (h *corePosts) actions(r *handlers.Request) []string {
	caps := calendard.CapsOf(h.postType)
	var rels []string
	if !h.attachment && r.User.Can(caps.Publish) {
		rels = append(rels, "publish")
	}
	if r.User.Can("unfiltered_html") {
		rels = append(rels, "unfiltered-html")
	}
	if r.User.Can(caps.EditOthers) {
		rels = append(rels, "assign-author")
	}
	for _, tax := range h.taxonomies {
		manage, assign := coreTermCaps(tax.name)
		create := assign
		if tax.name == calendard.TaxonomyCategory {
			create = manage
		}
		if r.User.Can(create) {
			rels = append(rels, "create-"+tax.base)
		}
		if r.User.Can(assign) {
			rels = append(rels, "assign-"+tax.base)
		}
	}
	return rels
}

// coreTermCaps are a taxonomy's edit_terms and assign_terms capabilities.
func coreTermCaps(taxonomy string) (edit, assign string) {
	if taxonomy == calendard.TaxonomyCategory {
		caps := calendard.CapsOf(calendard.PostTypeEvent)
		return caps.Publish, caps.Edit
	}
	return "manage_categories", "edit_posts"
}
