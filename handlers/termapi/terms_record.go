package termapi

import (
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/phpjson"
)

// Link is get_term_link: event categories use a hierarchical rewrite, so pretty links carry the
// ancestors' slugs ("events/category/music/jazz/").
func Link(r *handlers.Request, t *calendard.Term, idx *Index) string {
	if !r.Site.PrettyPermalinks || t.Taxonomy == calendard.TaxonomyTag {
		return r.Site.TermLink(t)
	}
	slugs := []string{t.Slug}
	for _, id := range termAncestors(t, idx) {
		slug := ""
		if a := idx.ByID(id); a != nil {
			slug = a.Slug
		}
		slugs = append([]string{slug}, slugs...)
	}
	path := *t
	path.Slug = strings.Join(slugs, "/")
	return r.Site.TermLink(&path)
}

// termAncestors is get_ancestors for a term, nearest first. Like WordPress it stops at a missing
// parent (which still counts) or at an ID already seen.
func termAncestors(t *calendard.Term, idx *Index) []int64 {
	var out []int64
	cur := t
	for cur != nil && cur.Parent != 0 {
		for _, seen := range out {
			if seen == cur.Parent {
				return out
			}
		}
		out = append(out, cur.Parent)
		cur = idx.ByID(cur.Parent)
	}
	return out
}

// RESTBase is the taxonomy's rest_base in the core API.
func RESTBase(taxonomy string) string {
	if taxonomy == calendard.TaxonomyTag {
		return "tags"
	}
	return taxonomy
}

// termObjectTypes are the post types registered for the taxonomy that the core API exposes, in
// registration order (the wp:post_type links).
func termObjectTypes(taxonomy string) []string {
	if taxonomy == calendard.TaxonomyTag {
		return []string{"posts", "tribe_events", "tec_calendar_embed"}
	}
	return []string{"tribe_events", "tec_calendar_embed"}
}

// Links are the core terms controller's links of a single term (prepare_links), compacted with
// the "wp" curie as WP_REST_Server emits them. The self link carries targetHints: the methods the
// user may call on the core route (edit_term / delete_term map to the taxonomy's capability).
func Links(r *handlers.Request, t *calendard.Term, idx *Index) *phpjson.Object {
	base := "/wp/v2/" + RESTBase(t.Taxonomy)
	allow := []any{"GET"}
	if r.User.Can(ManageCap(t.Taxonomy)) {
		allow = append(allow, "POST", "PUT", "PATCH", "DELETE")
	}
	links := phpjson.Obj(
		"self", []any{phpjson.Obj("href", handlers.RestURL(r.Site, base+"/"+handlers.Itoa(t.ID)), "targetHints", phpjson.Obj("allow", allow))},
		"collection", []any{phpjson.Obj("href", handlers.RestURL(r.Site, base))},
		"about", []any{phpjson.Obj("href", handlers.RestURL(r.Site, "/wp/v2/taxonomies/"+t.Taxonomy))},
	)
	if t.Parent != 0 && idx.ByID(t.Parent) != nil {
		links.Set("up", []any{phpjson.Obj("embeddable", true, "href", handlers.RestURL(r.Site, base+"/"+handlers.Itoa(t.Parent)))})
	}
	var types []any
	for _, pt := range termObjectTypes(t.Taxonomy) {
		href := handlers.AddQueryArg(handlers.RestURL(r.Site, "/wp/v2/"+pt), []calendard.KV{{Key: RESTBase(t.Taxonomy), Value: t.ID}})
		types = append(types, phpjson.Obj("href", href))
	}
	links.Set("wp:post_type", types)
	links.Set("curies", []any{phpjson.Obj("name", "wp", "href", "https://api.w.org/{rel}", "templated", true)})
	return links
}

// ManageCap is the taxonomy's manage_terms capability: publish_tribe_events for event
// categories, manage_categories (via manage_post_tags) for tags.
func ManageCap(taxonomy string) string {
	if taxonomy == calendard.TaxonomyCategory {
		return calendard.CapsOf(calendard.PostTypeEvent).Publish
	}
	return "manage_categories"
}
