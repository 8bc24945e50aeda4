package handlers_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/calendard/calendard/handlers"
)

// TestCoreTypesAndTaxonomiesListEveryRegisteredOne: /wp/v2/types and /wp/v2/taxonomies list what
// WordPress core and the plugin register (not only what calendard serves), with labels,
// capabilities and supports as register_post_type and register_taxonomy build them; the edit
// context keeps what the user may edit (types) or assign (taxonomies).
func TestCoreTypesAndTaxonomiesListEveryRegisteredOne(t *testing.T) {
	st := storeFixtures(t, handlers.Config{})["sqlite"]
	keys := func(t *testing.T, a answer) []string {
		var o map[string]json.RawMessage
		if err := json.Unmarshal([]byte(a.raw), &o); err != nil {
			t.Fatalf("status %d: %s", a.status, a.raw)
		}
		var out []string
		for k := range o {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	allTypes := []string{"attachment", "nav_menu_item", "page", "post", "tec_calendar_embed", "tribe_events", "tribe_organizer", "tribe_venue",
		"wp_block", "wp_font_face", "wp_font_family", "wp_global_styles", "wp_navigation", "wp_template", "wp_template_part"}
	runGetCases(t, "sqlite", st.srv, []getCase{
		{"visitors_see_every_type", "/wp-json/wp/v2/types", "", 200, func(t *testing.T, a answer) {
			if got := keys(t, a); !slices.Equal(got, allTypes) {
				t.Errorf("types %v", got)
			}
		}},
		{"editors_edit_list_leaves_out_theme_types", "/wp-json/wp/v2/types?context=edit", "editor", 200, func(t *testing.T, a answer) {
			got := keys(t, a)
			if slices.Contains(got, "wp_template") || slices.Contains(got, "nav_menu_item") || !slices.Contains(got, "wp_block") || !slices.Contains(got, "page") {
				t.Errorf("types %v", got)
			}
		}},
		{"administrators_edit_list_has_every_type", "/wp-json/wp/v2/types?context=edit", "admin", 200, func(t *testing.T, a answer) {
			if got := keys(t, a); !slices.Equal(got, allTypes) {
				t.Errorf("types %v", got)
			}
		}},
		{"pages_get_hierarchical_labels_and_page_capabilities", "/wp-json/wp/v2/types/page?context=edit", "admin", 200, func(t *testing.T, a answer) {
			labels, _ := a.body["labels"].(map[string]any)
			caps, _ := a.body["capabilities"].(map[string]any)
			if labels["parent_item_colon"] != "Parent Page:" || labels["name_admin_bar"] != "Page" || caps["edit_posts"] != "edit_pages" || a.body["viewable"] != true {
				t.Errorf("labels %v caps %v", labels, caps)
			}
			if _, has := labels["template_name"]; has {
				t.Error("page labels name a template: core gives pages no singular name")
			}
		}},
		{"media_creation_needs_upload_files", "/wp-json/wp/v2/types/attachment?context=edit", "admin", 200, func(t *testing.T, a answer) {
			caps, _ := a.body["capabilities"].(map[string]any)
			labels, _ := a.body["labels"].(map[string]any)
			if caps["create_posts"] != "upload_files" || labels["template_name"] != "Single item: Media" || a.body["rest_base"] != "media" {
				t.Errorf("caps %v labels %v", caps, labels)
			}
		}},
		{"global_styles_lose_autosave", "/wp-json/wp/v2/types/wp_global_styles?context=edit", "admin", 200, func(t *testing.T, a answer) {
			supports, _ := a.body["supports"].(map[string]any)
			if _, has := supports["autosave"]; has || supports["editor"] != true {
				t.Errorf("supports %v", supports)
			}
		}},
		{"theme_types_not_editable_by_authors", "/wp-json/wp/v2/types/wp_template?context=edit", "author", 403, nil},
		{"unknown_type_not_found", "/wp-json/wp/v2/types/book", "", 404, nil},
		{"visitors_see_every_taxonomy", "/wp-json/wp/v2/taxonomies", "", 200, func(t *testing.T, a answer) {
			if got := keys(t, a); !slices.Equal(got, []string{"category", "nav_menu", "post_tag", "tribe_events_cat", "wp_pattern_category"}) {
				t.Errorf("taxonomies %v", got)
			}
		}},
		{"tags_belong_to_posts_events_and_embeds", "/wp-json/wp/v2/taxonomies/post_tag", "", 200, func(t *testing.T, a answer) {
			types, _ := a.body["types"].([]any)
			if len(types) != 3 || types[0] != "post" || types[1] != "tribe_events" || types[2] != "tec_calendar_embed" {
				t.Errorf("types %v", types)
			}
		}},
		{"contributors_assign_categories_not_menus", "/wp-json/wp/v2/taxonomies?context=edit", "contributor", 200, func(t *testing.T, a answer) {
			got := keys(t, a)
			if slices.Contains(got, "nav_menu") || !slices.Contains(got, "category") || !slices.Contains(got, "post_tag") {
				t.Errorf("taxonomies %v", got)
			}
		}},
		{"taxonomies_of_a_type", "/wp-json/wp/v2/taxonomies?type=wp_block", "", 200, func(t *testing.T, a answer) {
			if got := keys(t, a); !slices.Equal(got, []string{"wp_pattern_category"}) {
				t.Errorf("taxonomies %v", got)
			}
		}},
		{"categories_get_hierarchical_labels", "/wp-json/wp/v2/taxonomies/category?context=edit", "admin", 200, func(t *testing.T, a answer) {
			labels, _ := a.body["labels"].(map[string]any)
			if labels["parent_item"] != "Parent Category" || labels["popular_items"] != nil || labels["name_admin_bar"] != "category" ||
				labels["template_name"] != "Category Archives" {
				t.Errorf("labels %v", labels)
			}
		}},
	})
}
