package wpv2

import (
	"fmt"
	"math"
	"strconv"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
	"github.com/calendard/calendard/internal/wptext"
)

// GET /wp/v2/<type>/<parent>/revisions: WP_REST_Revisions_Controller::get_items for the calendar's
// post types (the plugin registers them with revisions support).

func (h *corePosts) revisionsArgs() []*handlers.Arg {
	intItems := handlers.Schema("type", "integer")
	return []*handlers.Arg{
		handlers.SchemaArg("parent", false, handlers.Schema("description", "The ID for the parent of the revision.", "type", "integer"), nil),
		registryContextArg(),
		handlers.SchemaArg("page", false, handlers.Schema("description", "Current page of the collection.", "type", "integer", "default", 1, "minimum", 1), handlers.Absint),
		handlers.SchemaArg("per_page", false, handlers.Schema("description", "Maximum number of items to be returned in result set.", "type", "integer",
			"minimum", 1, "maximum", 100), handlers.Absint),
		handlers.SchemaArg("search", false, handlers.Schema("description", "Limit results to those matching a string.", "type", "string"), handlers.SanitizeTextParam),
		handlers.SchemaArg("exclude", false, handlers.Schema("description", "Ensure result set excludes specific IDs.", "type", "array", "items", intItems, "default", []any{}), nil),
		handlers.SchemaArg("include", false, handlers.Schema("description", "Limit result set to specific IDs.", "type", "array", "items", intItems, "default", []any{}), nil),
		handlers.SchemaArg("offset", false, handlers.Schema("description", "Offset the result set by a specific number of items.", "type", "integer"), nil),
		handlers.SchemaArg("order", false, handlers.Schema("description", "Order sort attribute ascending or descending.", "type", "string", "default", "desc",
			"enum", handlers.StrList("asc", "desc")), nil),
		handlers.SchemaArg("orderby", false, handlers.Schema("description", "Sort collection by object attribute.", "type", "string", "default", "date",
			"enum", handlers.StrList("date", "id", "include", "relevance", "slug", "include_slugs", "title")), nil),
	}
}

// revisionsParent is get_parent: the post of this type the route names.
func (h *corePosts) revisionsParent(r *handlers.Request) (*calendard.CorePost, error) {
	reader := h.svc.posts
	invalid := &calendard.Error{Code: "rest_post_invalid_parent", Message: "Invalid post parent ID.", Status: 404}
	id := php.Int(r.Value("parent"))
	if id <= 0 {
		return nil, invalid
	}
	p, err := reader.CorePost(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if p == nil || p.Type != h.postType {
		return nil, invalid
	}
	return p, nil
}

// revisionsPermission is get_items_permissions_check: edit_post on the parent.
func (h *corePosts) revisionsPermission(r *handlers.Request) error {
	p, err := h.revisionsParent(r)
	if err != nil {
		return err
	}
	if !canEdit(r, p.Post) {
		return &calendard.Error{Code: "rest_cannot_read", Message: "Sorry, you are not allowed to view revisions of this post.", Status: authCode(r)}
	}
	return nil
}

// revisions is get_items.
func (h *corePosts) revisions(r *handlers.Request) (*handlers.Response, error) {
	parent, err := h.revisionsParent(r)
	if err != nil {
		return nil, err
	}
	lister := h.svc.posts
	q := calendard.CorePostQuery{PostType: "revision", Statuses: []string{"inherit"}, Parent: &parent.ID, OrderBy: "date ID", Desc: true}
	q.Include, q.Exclude = intList(r, "include"), intList(r, "exclude")
	if search, _ := r.Value("search").(string); search != "" {
		q.Search = calendard.ParseSearch(search)
		q.SearchAnonymous = !r.User.LoggedIn()
	}
	// The orderby parameter (date by default) replaces wp_get_post_revisions' "date ID".
	orderby, _ := r.Value("orderby").(string)
	q.OrderBy = map[string]string{"id": "ID", "include": "post__in", "slug": "post_name", "include_slugs": "post_name__in"}[orderby]
	if q.OrderBy == "" {
		q.OrderBy = orderby
	}
	q.Desc = r.Value("order") != "asc"
	page := max(php.Int(r.Value("page")), 1)
	perPage := php.Int(r.Value("per_page"))
	paged := perPage > 0
	// The offset checks below read the parameter as given; WP_Query reads absint of it, and only
	// when it pages at all (posts_per_page -1 has no LIMIT, so it ignores offset and page).
	var offset int64
	off, hasOffset := r.Param("offset")
	if hasOffset {
		offset = php.Int(off)
	}
	switch {
	case !paged:
		q.Limit = math.MaxInt32
	case hasOffset:
		q.Limit, q.Offset = int(perPage), handlers.QueryOffset(offset)
	default:
		q.Limit, q.Offset = int(perPage), handlers.RowsBefore(page, perPage)
	}
	ids, total, err := lister.CorePostIDs(r.Context(), r.Site, q)
	if err != nil {
		return nil, err
	}
	var maxPages int64
	if paged {
		maxPages = int64(math.Ceil(float64(total) / float64(perPage)))
	} else if total > 0 {
		maxPages = 1
	}
	if total > 0 {
		if offset >= int64(total) {
			return nil, &calendard.Error{Code: "rest_revision_invalid_offset_number", Message: "The offset number requested is larger than or equal to the number of available revisions.", Status: 400}
		}
		if offset == 0 && page > maxPages {
			return nil, &calendard.Error{Code: "rest_revision_invalid_page_number", Message: "The page number requested is larger than the number of pages available.", Status: 400}
		}
	}
	items := []any{}
	if r.Method != "HEAD" && len(ids) > 0 {
		revs, err := lister.CorePosts(r.Context(), ids)
		if err != nil {
			return nil, err
		}
		for _, rev := range revs {
			items = append(items, h.revisionItem(r, rev.Post, parent.Post, viewContext(r)))
		}
	}
	return pagedResponse(r, items, "/wp/v2/"+h.postType+"/"+strconv.FormatInt(parent.ID, 10)+"/revisions",
		page, maxPages, int64(total)), nil
}

// revisionItem is WP_REST_Revisions_Controller::prepare_item_for_response: the revision's own
// fields, the parent type's registered meta, and a link to the parent.
func (h *corePosts) revisionItem(r *handlers.Request, rev, parent *calendard.Post, ctx string) *phpjson.Object {
	savedID := r.Render.PostID
	r.Render.PostID = int(rev.ID)
	defer func() { r.Render.PostID = savedID }()
	edit, embed := ctx == "edit", ctx == "embed"
	o := phpjson.Obj("author", rev.Author, "date", restDate(rev.Date))
	if !embed {
		o.Set("date_gmt", restDate(rev.DateGMT))
	}
	o.Set("id", rev.ID)
	if !embed {
		o.Set("modified", restDate(rev.Modified))
		o.Set("modified_gmt", restDate(rev.ModifiedGMT))
	}
	o.Set("parent", rev.Parent)
	o.Set("slug", rev.Name)
	if !embed {
		guid := phpjson.Obj("rendered", rev.GUID)
		if edit {
			guid.Set("raw", rev.GUID)
		}
		o.Set("guid", guid)
	}
	title := phpjson.NewObject()
	if edit {
		title.Set("raw", rev.Title)
	}
	o.Set("title", title.Set("rendered", wptext.Title(rev.Title)))
	if !embed {
		content := phpjson.NewObject()
		if edit {
			content.Set("raw", rev.Content)
		}
		o.Set("content", content.Set("rendered", wptext.TheContent(rev.Content, r.Render)))
	}
	excerpt := phpjson.NewObject()
	if edit {
		excerpt.Set("raw", rev.Excerpt)
	}
	rendered := ""
	if rev.Excerpt != "" {
		rendered = wptext.TheExcerpt(rev.Excerpt, r.Render)
	}
	o.Set("excerpt", excerpt.Set("rendered", rendered))
	if !embed {
		o.Set("meta", h.metaObject(rev))
	}
	o.Set("_links", phpjson.Obj("parent", []any{phpjson.Obj("href", handlers.RestURL(r.Site, "/wp/v2/"+h.postType+"/"+strconv.FormatInt(parent.ID, 10)))}))
	return o
}

// GET and DELETE /wp/v2/<type>/<parent>/revisions/<id>: WP_REST_Revisions_Controller::get_item
// and delete_item.

// revisionArgs are the single revision route's own arguments with an endpoint's.
func revisionArgs(more ...*handlers.Arg) []*handlers.Arg {
	return append([]*handlers.Arg{
		handlers.SchemaArg("parent", false, handlers.Schema("description", "The ID for the parent of the revision.", "type", "integer"), nil),
		handlers.SchemaArg("id", false, handlers.Schema("description", "Unique identifier for the revision.", "type", "integer"), nil),
	}, more...)
}

// revision is get_revision: a revision with the route's ID.
func (c *coreServices) revision(r *handlers.Request) (*calendard.CorePost, error) {
	invalid := &calendard.Error{Code: "rest_post_invalid_id", Message: "Invalid revision ID.", Status: 404}
	id := php.Int(r.Value("id"))
	if id <= 0 {
		return nil, invalid
	}
	rev := c.corePost(r, id)
	if rev == nil || rev.Type != "revision" {
		return nil, invalid
	}
	return rev, nil
}

// revisionGet is get_item (get_item_permissions_check is the list's): the revision must belong
// to the parent the route names.
func (h *corePosts) revisionGet(r *handlers.Request) (*handlers.Response, error) {
	parent, err := h.revisionsParent(r)
	if err != nil {
		return nil, err
	}
	rev, err := h.svc.revision(r)
	if err != nil {
		return nil, err
	}
	if rev.Parent != parent.ID {
		return nil, &calendard.Error{Code: "rest_revision_parent_id_mismatch",
			Message: fmt.Sprintf("The revision does not belong to the specified parent with id of \"%d\"", parent.ID), Status: 404}
	}
	return handlers.Ok(h.revisionItem(r, rev.Post, parent.Post, viewContext(r))), nil
}

// revisionDeletePermission is delete_item_permissions_check: delete_post on the parent, the
// revision, the list's check, then delete_post on the revision, which map_meta_cap never grants
// (revisions map to do_not_allow), so a revision is never deleted through the REST API.
func (h *corePosts) revisionDeletePermission(r *handlers.Request) error {
	parent, err := h.revisionsParent(r)
	if err != nil {
		return err
	}
	if !canDelete(r, parent.Post) {
		return &calendard.Error{Code: "rest_cannot_delete", Message: "Sorry, you are not allowed to delete revisions of this post.", Status: authCode(r)}
	}
	if _, err := h.svc.revision(r); err != nil {
		return err
	}
	if err := h.revisionsPermission(r); err != nil {
		return err
	}
	return &calendard.Error{Code: "rest_cannot_delete", Message: "Sorry, you are not allowed to delete this revision.", Status: authCode(r)}
}

// revisionDelete is delete_item, past a permission check no user passes: revisions are not
// trashed, only deleted with force.
func (h *corePosts) revisionDelete(r *handlers.Request) (*handlers.Response, error) {
	if !handlers.RestBool(r.Value("force")) {
		return nil, &calendard.Error{Code: "rest_trash_not_supported", Message: "Revisions do not support trashing. Set 'force=true' to delete.", Status: 501}
	}
	return nil, &calendard.Error{Code: "rest_cannot_delete", Message: "The post cannot be deleted.", Status: 500}
}
