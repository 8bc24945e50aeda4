package wpv2

import (
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/phpjson"
)

// itemSchema is WP_REST_Posts_Controller::get_item_schema for the type, as OPTIONS shows it: the
// properties with their contexts, and the schema links of the available actions.
func (h *corePosts) itemSchema(r *handlers.Request) *phpjson.Object {
	ctx := func(c ...string) []any { return handlers.StrList(c...) }
	all, viewEdit := ctx("view", "edit", "embed"), ctx("view", "edit")
	props := phpjson.NewObject()
	withContext := func(name string, context []any, extra ...any) {
		p := h.writeArgSchema(name)
		p.Set("context", context)
		for i := 0; i+1 < len(extra); i += 2 {
			p.Set(extra[i].(string), extra[i+1])
		}
		props.Set(name, p)
	}
	// Object properties keep their sub-properties after the context.
	withObject := func(name string, context []any) {
		p := h.writeArgSchema(name)
		sub, _ := p.Get("properties")
		p.Delete("properties")
		p.Set("context", context)
		p.Set("properties", sub)
		props.Set(name, p)
	}
	withContext("date", all)
	withContext("date_gmt", viewEdit)
	props.Set("guid", phpjson.Obj("description", "The globally unique identifier for the post.", "type", "object",
		"context", viewEdit, "readonly", true, "properties", phpjson.Obj(
			"raw", phpjson.Obj("description", "GUID for the post, as it exists in the database.", "type", "string", "context", ctx("edit"), "readonly", true),
			"rendered", phpjson.Obj("description", "GUID for the post, transformed for display.", "type", "string", "context", viewEdit, "readonly", true))))
	props.Set("id", phpjson.Obj("description", "Unique identifier for the post.", "type", "integer", "context", all, "readonly", true))
	props.Set("link", phpjson.Obj("description", "URL to the post.", "type", "string", "format", "uri", "context", all, "readonly", true))
	props.Set("modified", phpjson.Obj("description", "The date the post was last modified, in the site's timezone.", "type", "string",
		"format", "date-time", "context", viewEdit, "readonly", true))
	props.Set("modified_gmt", phpjson.Obj("description", "The date the post was last modified, as GMT.", "type", "string",
		"format", "date-time", "context", viewEdit, "readonly", true))
	withContext("slug", all)
	withContext("status", viewEdit)
	props.Set("type", phpjson.Obj("description", "Type of post.", "type", "string", "context", all, "readonly", true))
	withContext("password", ctx("edit"))
	if h.viewable {
		props.Set("permalink_template", phpjson.Obj("description", "Permalink template for the post.", "type", "string",
			"context", ctx("edit"), "readonly", true))
		props.Set("generated_slug", phpjson.Obj("description", "Slug automatically generated from the post title.", "type", "string",
			"context", ctx("edit"), "readonly", true))
		props.Set("class_list", phpjson.Obj("description", "An array of the class names for the post container element.", "type", "array",
			"context", viewEdit, "readonly", true, "items", phpjson.Obj("type", "string")))
	}
	withObject("title", all)
	withObject("content", viewEdit)
	withContext("author", all)
	withObject("excerpt", all)
	withContext("featured_media", all)
	withObject("meta", viewEdit)
	withContext("template", viewEdit)
	for _, tax := range h.taxonomies {
		a := coreTermListArg(tax.base, tax.name)
		p := phpjson.NewObject()
		for _, k := range a.Schema.Keys() {
			v, _ := a.Schema.Get(k)
			p.Set(k, v)
		}
		p.Set("context", viewEdit)
		props.Set(tax.base, p)
	}

	href := handlers.RestURL(r.Site, "/wp/v2/"+h.postType+"/{id}")
	link := func(rel, title string, target *phpjson.Object) any {
		return phpjson.Obj("rel", "https://api.w.org/"+rel, "title", title, "href", href,
			"targetSchema", phpjson.Obj("type", "object", "properties", target))
	}
	ints := phpjson.Obj("type", "array", "items", phpjson.Obj("type", "integer"))
	links := []any{
		link("action-publish", "The current user can publish this post.",
			phpjson.Obj("status", phpjson.Obj("type", "string", "enum", handlers.StrList("publish", "future")))),
		link("action-unfiltered-html", "The current user can post unfiltered HTML markup and JavaScript.",
			phpjson.Obj("content", phpjson.Obj("raw", phpjson.Obj("type", "string")))),
		link("action-assign-author", "The current user can change the author on this post.",
			phpjson.Obj("author", phpjson.Obj("type", "integer"))),
	}
	for _, tax := range h.taxonomies {
		links = append(links,
			link("action-assign-"+tax.base, "The current user can assign terms in the "+tax.name+" taxonomy.", phpjson.Obj(tax.base, ints)),
			link("action-create-"+tax.base, "The current user can create terms in the "+tax.name+" taxonomy.", phpjson.Obj(tax.base, ints)))
	}
	return phpjson.Obj("$schema", "http://json-schema.org/draft-04/schema#", "title", h.postType, "type", "object",
		"properties", props, "links", links)
}

// coreContextSchema is the context parameter's schema (get_context_param) as route answers show it.
func coreContextSchema() *phpjson.Object {
	return phpjson.Obj("description", "Scope under which the request is made; determines fields present in response.",
		"type", "string", "enum", handlers.StrList("view", "embed", "edit"), "default", "view")
}
