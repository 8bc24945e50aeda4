package wpv2

import (
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/phpjson"
)

// WordPress core's registered post types and taxonomies, as register_post_type and
// register_taxonomy build them (WP_Post_Type::set_props, get_post_type_capabilities,
// get_post_type_labels, WP_Post_Type::add_supports; WP_Taxonomy::set_props, get_taxonomy_labels),
// from the arguments create_initial_post_types, create_initial_taxonomies and the pattern
// category registration pass, plus the plugin's tec_calendar_embed (Calendar_Embeds::
// register_post_type). The plugin's own three types and its category taxonomy keep their data in
// registry.json. Read from wordpress-develop's sources; where WordPress 6.9 (the reference's
// version) differs from the sources read, the 6.9 value is used and marked "6.9".

// postTypeDef is what register_post_type is given (only the arguments that shape the REST answer).
type postTypeDef struct {
	name, label, description string
	labels                   []string // label key, value pairs in the order given
	public, builtin          bool
	publiclyQueryable        *bool
	showUI, showInNavMenus   *bool
	hierarchical             bool
	menuIcon                 any
	capType                  [2]string // "" is "post"
	caps                     []string  // capability key, value pairs
	mapMetaCap               *bool
	supports                 []any // feature names, or supportArgs
	noSupportsArg            bool  // no 'supports' argument: title, editor, autosave
	removeSupports           []string
	restBase                 string
	taxonomies               []string // the 'taxonomies' argument
}

// supportArgs is a feature registered with arguments ('editor' => array('notes' => true)).
type supportArgs struct {
	feature string
	args    *phpjson.Object
}

// taxonomyDef is what register_taxonomy is given.
type taxonomyDef struct {
	name, description                                       string
	objectTypes                                             []string
	labels                                                  []string
	public, hierarchical                                    bool
	publiclyQueryable, showUI, showInNavMenus, showTagcloud *bool
	showAdminColumn                                         bool
	caps                                                    []string
	restBase                                                string
}

func yes() *bool { t := true; return &t }
func no() *bool  { f := false; return &f }

// themeCaps are the edit_theme_options capabilities of the site-editor types.
func themeCaps(keys ...string) []string {
	var out []string
	for _, k := range keys {
		out = append(out, k, "edit_theme_options")
	}
	return out
}

// notes is 6.9's 'editor' => array('notes' => true) of posts and pages.
var notes = supportArgs{"editor", phpjson.Obj("notes", true)}

// corePostTypes are the types create_initial_post_types registers with show_in_rest, in order.
var corePostTypes = []postTypeDef{
	{name: "post", labels: []string{"name_admin_bar", "Post"}, public: true, builtin: true, menuIcon: "dashicons-admin-post",
		mapMetaCap: yes(), restBase: "posts",
		supports: []any{"title", notes, "author", "thumbnail", "excerpt", "trackbacks", "custom-fields", "comments", "revisions", "post-formats"}},
	{name: "page", labels: []string{"name_admin_bar", "Page"}, public: true, publiclyQueryable: no(), builtin: true, hierarchical: true,
		menuIcon: "dashicons-admin-page", capType: [2]string{"page", "pages"}, mapMetaCap: yes(), restBase: "pages",
		supports: []any{"title", notes, "author", "thumbnail", "page-attributes", "custom-fields", "comments", "revisions"}},
	// view_item follows wp_attachment_pages_enabled; the recorded site has it off.
	{name: "attachment", labels: []string{"name", "Media", "name_admin_bar", "Media", "add_new", "Add Media File", "add_new_item", "Add Media File",
		"edit_item", "Edit Media", "view_item", "View Media File", "attributes", "Attachment Attributes"},
		public: true, showUI: yes(), builtin: true, caps: []string{"create_posts", "upload_files"}, mapMetaCap: yes(),
		menuIcon: "dashicons-admin-media", showInNavMenus: no(), supports: []any{"title", "author", "comments"}, restBase: "media"},
	{name: "nav_menu_item", labels: []string{"name", "Navigation Menu Items", "singular_name", "Navigation Menu Item"}, builtin: true,
		mapMetaCap: yes(), capType: [2]string{"edit_theme_options", "edit_theme_options"},
		caps: append([]string{"edit_post", "edit_post", "read_post", "read_post", "delete_post", "delete_post"},
			append(themeCaps("edit_posts", "edit_others_posts", "delete_posts", "publish_posts", "read_private_posts"),
				append([]string{"read", "read"}, themeCaps("delete_private_posts", "delete_published_posts", "delete_others_posts",
					"edit_private_posts", "edit_published_posts")...)...)...),
		noSupportsArg: true, restBase: "menu-items"},
	{name: "wp_block", labels: []string{"name", "Patterns", "singular_name", "Pattern", "add_new", "Add Pattern", "add_new_item", "Add Pattern",
		"new_item", "New Pattern", "edit_item", "Edit Block Pattern", "view_item", "View Pattern", "view_items", "View Patterns",
		"all_items", "All Patterns", "search_items", "Search Patterns", "not_found", "No patterns found.",
		"not_found_in_trash", "No patterns found in Trash.", "filter_items_list", "Filter patterns list",
		"items_list_navigation", "Patterns list navigation", "items_list", "Patterns list", "item_published", "Pattern published.",
		"item_published_privately", "Pattern published privately.", "item_reverted_to_draft", "Pattern reverted to draft.",
		"item_scheduled", "Pattern scheduled.", "item_updated", "Pattern updated."},
		builtin: true, showUI: yes(), restBase: "blocks", capType: [2]string{"block", "blocks"},
		caps: []string{"read", "edit_posts", "create_posts", "publish_posts", "edit_posts", "edit_posts", "edit_published_posts", "edit_published_posts",
			"delete_published_posts", "delete_published_posts", "delete_posts", "delete_posts", "edit_others_posts", "edit_others_posts",
			"delete_others_posts", "delete_others_posts"},
		mapMetaCap: yes(), supports: []any{"title", "excerpt", "editor", "revisions", "custom-fields"}},
	{name: "wp_template", labels: []string{"name", "Templates", "singular_name", "Template", "add_new", "Add Template", "add_new_item", "Add Template", "new_item", "New Template", "edit_item", "Edit Template", "view_item", "View Template", "all_items", "Templates", "search_items", "Search Templates", "parent_item_colon", "Parent Template:", "not_found", "No templates found.", "not_found_in_trash", "No templates found in Trash.", "archives", "Template archives", "insert_into_item", "Insert into template", "uploaded_to_this_item", "Uploaded to this template", "filter_items_list", "Filter templates list", "items_list_navigation", "Templates list navigation", "items_list", "Templates list", "item_updated", "Template updated."},
		description: "Templates to include in your theme.", builtin: true, showUI: no(), restBase: "templates",
		capType: [2]string{"template", "templates"},
		caps: themeCaps("create_posts", "delete_posts", "delete_others_posts", "delete_private_posts", "delete_published_posts", "edit_posts",
			"edit_others_posts", "edit_private_posts", "edit_published_posts", "publish_posts", "read", "read_private_posts"),
		mapMetaCap: yes(), supports: []any{"title", "slug", "excerpt", "editor", "revisions", "author"}},
	{name: "wp_template_part", labels: []string{"name", "Template Parts", "singular_name", "Template Part", "add_new", "Add Template Part", "add_new_item", "Add Template Part", "new_item", "New Template Part", "edit_item", "Edit Template Part", "view_item", "View Template Part", "all_items", "Template Parts", "search_items", "Search Template Parts", "parent_item_colon", "Parent Template Part:", "not_found", "No template parts found.", "not_found_in_trash", "No template parts found in Trash.", "archives", "Template part archives", "insert_into_item", "Insert into template part", "uploaded_to_this_item", "Uploaded to this template part", "filter_items_list", "Filter template parts list", "items_list_navigation", "Template parts list navigation", "items_list", "Template parts list", "item_updated", "Template part updated."},
		description: "Template parts to include in your templates.", builtin: true, showUI: no(), restBase: "template-parts", mapMetaCap: yes(),
		caps: themeCaps("create_posts", "delete_posts", "delete_others_posts", "delete_private_posts", "delete_published_posts", "edit_posts",
			"edit_others_posts", "edit_private_posts", "edit_published_posts", "publish_posts", "read", "read_private_posts"),
		supports: []any{"title", "slug", "excerpt", "editor", "revisions", "author"}},
	{name: "wp_global_styles", label: "Global Styles", description: "Global styles to include in themes.", builtin: true, showUI: no(),
		restBase: "global-styles", caps: append([]string{"read", "edit_posts"}, themeCaps("create_posts", "edit_posts", "edit_published_posts",
			"delete_published_posts", "edit_others_posts", "delete_others_posts")...),
		mapMetaCap: yes(), supports: []any{"title", "editor", "revisions"}, removeSupports: []string{"autosave"}},
	{name: "wp_navigation", labels: []string{"name", "Navigation Menus", "singular_name", "Navigation Menu", "add_new", "Add Navigation Menu",
		"add_new_item", "Add Navigation Menu", "new_item", "New Navigation Menu", "edit_item", "Edit Navigation Menu",
		"view_item", "View Navigation Menu", "all_items", "Navigation Menus", "search_items", "Search Navigation Menus",
		"parent_item_colon", "Parent Navigation Menu:", "not_found", "No Navigation Menu found.",
		"not_found_in_trash", "No Navigation Menu found in Trash.", "archives", "Navigation Menu archives",
		"insert_into_item", "Insert into Navigation Menu", "uploaded_to_this_item", "Uploaded to this Navigation Menu",
		"filter_items_list", "Filter Navigation Menu list", "items_list_navigation", "Navigation Menus list navigation",
		"items_list", "Navigation Menus list"},
		description: "Navigation menus that can be inserted into your site.", builtin: true, showUI: yes(), mapMetaCap: yes(),
		caps: themeCaps("edit_others_posts", "delete_posts", "publish_posts", "create_posts", "read_private_posts", "delete_private_posts",
			"delete_published_posts", "delete_others_posts", "edit_private_posts", "edit_published_posts", "edit_posts"),
		restBase: "navigation", supports: []any{"title", "editor", "revisions"}},
	{name: "wp_font_family", labels: []string{"name", "Font Families", "singular_name", "Font Family"}, builtin: true, caps: fontCaps,
		mapMetaCap: yes(), restBase: "font-families", supports: []any{"title"}},
	{name: "wp_font_face", labels: []string{"name", "Font Faces", "singular_name", "Font Face"}, builtin: true, caps: fontCaps,
		mapMetaCap: yes(), restBase: "font-families/(?P<font_family_id>[\\d]+)/font-faces", supports: []any{"title"}},
}

var fontCaps = themeCaps("read", "read_private_posts", "create_posts", "publish_posts", "edit_posts", "edit_others_posts",
	"edit_published_posts", "delete_posts", "delete_others_posts", "delete_published_posts")

// calendarEmbedType is the plugin's tec_calendar_embed (registered on init after its other types).
var calendarEmbedType = postTypeDef{name: "tec_calendar_embed", label: "Calendar Embeds",
	labels: []string{"name", "Calendar Embeds", "singular_name", "Calendar Embed", "add_new", "Add New", "add_new_item", "Add New Calendar Embed",
		"edit_item", "Edit Calendar Embed", "new_item", "New Calendar Embed", "view_item", "View Calendar Embed",
		"search_items", "Search Calendar Embeds", "not_found", "No calendar embeds found.", "not_found_in_trash", "No calendar embeds found in Trash.",
		"parent_item_colon", "Parent Calendar Embeds:", "all_items", "Calendar Embeds", "insert_into_item", "Insert into calendar embed",
		"uploaded_to_this_item", "Uploaded to this calendar embed", "menu_name", "Calendar Embeds", "filter_items_list", "Filter calendar embeds list",
		"items_list_navigation", "Calendar Embeds list navigation", "items_list", "Calendar Embeds list",
		"item_published", "Calendar embed published.", "item_published_privately", "Calendar embed published privately.",
		"item_reverted_to_draft", "Calendar embed reverted to draft.", "item_trashed", "Calendar embed trashed.",
		"item_scheduled", "Calendar embed scheduled.", "item_updated", "Calendar embed updated.", "item_link", "Calendar embed link",
		"item_link_description", "A link to the calendar embed."},
	publiclyQueryable: yes(), showUI: yes(), showInNavMenus: yes(), supports: []any{"title"},
	taxonomies: []string{"tribe_events_cat", "post_tag"}}

// coreTaxonomies are create_initial_taxonomies' taxonomies shown in REST, and the pattern
// categories, in registration order.
var coreTaxonomies = []taxonomyDef{
	{name: "category", objectTypes: []string{"post"}, hierarchical: true, public: true, showUI: yes(), showAdminColumn: true,
		caps: []string{"manage_terms", "manage_categories", "edit_terms", "edit_categories", "delete_terms", "delete_categories",
			"assign_terms", "assign_categories"}, restBase: "categories"},
	{name: "post_tag", objectTypes: []string{"post"}, public: true, showUI: yes(), showAdminColumn: true,
		caps: []string{"manage_terms", "manage_post_tags", "edit_terms", "edit_post_tags", "delete_terms", "delete_post_tags",
			"assign_terms", "assign_post_tags"}, restBase: "tags"},
	{name: "nav_menu", objectTypes: []string{"nav_menu_item"}, labels: []string{"name", "Navigation Menus", "singular_name", "Navigation Menu"},
		showUI: no(), showInNavMenus: no(), caps: []string{"manage_terms", "edit_theme_options", "edit_terms", "edit_theme_options",
			"delete_terms", "edit_theme_options", "assign_terms", "edit_theme_options"}, restBase: "menus"},
	// add_new_item: 6.9 reads "Add Category".
	{name: "wp_pattern_category", objectTypes: []string{"wp_block"}, publiclyQueryable: no(),
		labels: []string{"name", "Pattern Categories", "singular_name", "Pattern Category", "add_new_item", "Add Category",
			"add_or_remove_items", "Add or remove pattern categories", "back_to_items", "&larr; Go to Pattern Categories",
			"choose_from_most_used", "Choose from the most used pattern categories", "edit_item", "Edit Pattern Category",
			"item_link", "Pattern Category Link", "item_link_description", "A link to a pattern category.",
			"items_list", "Pattern Categories list", "items_list_navigation", "Pattern Categories list navigation",
			"new_item_name", "New Pattern Category Name", "no_terms", "No pattern categories", "not_found", "No pattern categories found.",
			"popular_items", "Popular Pattern Categories", "search_items", "Search Pattern Categories",
			"separate_items_with_commas", "Separate pattern categories with commas", "update_item", "Update Pattern Category",
			"view_item", "View Pattern Category"},
		showUI: yes(), showInNavMenus: no(), showAdminColumn: true, showTagcloud: no(), restBase: "wp_pattern_category"},
}

// postTypeDefaultLabels is WP_Post_Type::get_default_labels: [non-hierarchical, hierarchical];
// get_post_type_labels adds menu_name (as name) at the end. "" stands for null.
var postTypeDefaultLabels = [][3]string{
	{"name", "Posts", "Pages"}, {"singular_name", "Post", "Page"}, {"add_new", "Add", "Add"}, {"add_new_item", "Add Post", "Add Page"},
	{"edit_item", "Edit Post", "Edit Page"}, {"new_item", "New Post", "New Page"}, {"view_item", "View Post", "View Page"},
	{"view_items", "View Posts", "View Pages"}, {"search_items", "Search Posts", "Search Pages"},
	{"not_found", "No posts found.", "No pages found."}, {"not_found_in_trash", "No posts found in Trash.", "No pages found in Trash."},
	{"parent_item_colon", "", "Parent Page:"}, {"all_items", "All Posts", "All Pages"}, {"archives", "Post Archives", "Page Archives"},
	{"attributes", "Post Attributes", "Page Attributes"}, {"insert_into_item", "Insert into post", "Insert into page"},
	{"uploaded_to_this_item", "Uploaded to this post", "Uploaded to this page"}, {"featured_image", "Featured image", "Featured image"},
	{"set_featured_image", "Set featured image", "Set featured image"}, {"remove_featured_image", "Remove featured image", "Remove featured image"},
	{"use_featured_image", "Use as featured image", "Use as featured image"}, {"filter_items_list", "Filter posts list", "Filter pages list"},
	{"filter_by_date", "Filter by date", "Filter by date"}, {"items_list_navigation", "Posts list navigation", "Pages list navigation"},
	{"items_list", "Posts list", "Pages list"}, {"item_published", "Post published.", "Page published."},
	{"item_published_privately", "Post published privately.", "Page published privately."},
	{"item_reverted_to_draft", "Post reverted to draft.", "Page reverted to draft."}, {"item_trashed", "Post trashed.", "Page trashed."},
	{"item_scheduled", "Post scheduled.", "Page scheduled."}, {"item_updated", "Post updated.", "Page updated."},
	{"item_link", "Post Link", "Page Link"}, {"item_link_description", "A link to a post.", "A link to a page."},
	{"menu_name", "Posts", "Pages"},
}

// taxonomyDefaultLabels is WP_Taxonomy::get_default_labels (add_new_item: 6.9 reads "Add Tag" and
// "Add Category"), menu_name added as name.
var taxonomyDefaultLabels = func() [][3]string {
	name := "The name is how it appears on your site."
	slug := "The &#8220;slug&#8221; is the URL-friendly version of the name. It is usually all lowercase and contains only letters, numbers, and hyphens."
	parent := "Assign a parent term to create a hierarchy. The term Jazz, for example, would be the parent of Bebop and Big Band."
	desc := "The description is not prominent by default; however, some themes may show it."
	return [][3]string{
		{"name", "Tags", "Categories"}, {"singular_name", "Tag", "Category"}, {"search_items", "Search Tags", "Search Categories"},
		{"popular_items", "Popular Tags", ""}, {"all_items", "All Tags", "All Categories"}, {"parent_item", "", "Parent Category"},
		{"parent_item_colon", "", "Parent Category:"}, {"name_field_description", name, name}, {"slug_field_description", slug, slug},
		{"parent_field_description", "", parent}, {"desc_field_description", desc, desc}, {"edit_item", "Edit Tag", "Edit Category"},
		{"view_item", "View Tag", "View Category"}, {"update_item", "Update Tag", "Update Category"},
		{"add_new_item", "Add Tag", "Add Category"}, {"new_item_name", "New Tag Name", "New Category Name"},
		{"separate_items_with_commas", "Separate tags with commas", ""}, {"add_or_remove_items", "Add or remove tags", ""},
		{"choose_from_most_used", "Choose from the most used tags", ""}, {"not_found", "No tags found.", "No categories found."},
		{"no_terms", "No tags", "No categories"}, {"filter_by_item", "", "Filter by category"},
		{"items_list_navigation", "Tags list navigation", "Categories list navigation"}, {"items_list", "Tags list", "Categories list"},
		{"most_used", "Most Used", "Most Used"}, {"back_to_items", "&larr; Go to Tags", "&larr; Go to Categories"},
		{"item_link", "Tag Link", "Category Link"}, {"item_link_description", "A link to a tag.", "A link to a category."},
		{"menu_name", "Tags", "Categories"},
	}
}()

// customObjectLabels is _get_custom_object_labels: the given labels completed (singular_name,
// name_admin_bar, menu_name, all_items, archives from what is given), merged over the defaults of
// the object's kind. It returns the merged labels and the given labels as completed.
func customObjectLabels(name, label string, given []string, hierarchical bool, defaults [][3]string) (merged, own *phpjson.Object) {
	own = phpjson.NewObject()
	for i := 0; i+1 < len(given); i += 2 {
		own.Set(given[i], given[i+1])
	}
	has := func(k string) bool { _, ok := own.Get(k); return ok }
	get := func(k string) any { v, _ := own.Get(k); return v }
	if n, _ := get("name").(string); label != "" && n == "" {
		own.Set("name", label)
	}
	if !has("singular_name") && has("name") {
		own.Set("singular_name", get("name"))
	}
	if !has("name_admin_bar") {
		if has("singular_name") {
			own.Set("name_admin_bar", get("singular_name"))
		} else {
			own.Set("name_admin_bar", name)
		}
	}
	if !has("menu_name") && has("name") {
		own.Set("menu_name", get("name"))
	}
	if !has("all_items") && has("menu_name") {
		own.Set("all_items", get("menu_name"))
	}
	if !has("archives") && has("all_items") {
		own.Set("archives", get("all_items"))
	}
	merged = phpjson.NewObject()
	for _, d := range defaults {
		v := d[1]
		if hierarchical {
			v = d[2]
		}
		if v == "" {
			merged.Set(d[0], nil)
		} else {
			merged.Set(d[0], v)
		}
	}
	for _, k := range own.Keys() {
		merged.Set(k, get(k))
	}
	return merged, own
}

// postTypeCaps is get_post_type_capabilities.
func postTypeCaps(d postTypeDef, mapMetaCap bool) *phpjson.Object {
	single, plural := d.capType[0], d.capType[1]
	if single == "" {
		single, plural = "post", "posts"
	}
	c := phpjson.Obj("edit_post", "edit_"+single, "read_post", "read_"+single, "delete_post", "delete_"+single,
		"edit_posts", "edit_"+plural, "edit_others_posts", "edit_others_"+plural, "delete_posts", "delete_"+plural,
		"publish_posts", "publish_"+plural, "read_private_posts", "read_private_"+plural)
	if mapMetaCap {
		for _, kv := range [][2]string{{"read", "read"}, {"delete_private_posts", "delete_private_" + plural},
			{"delete_published_posts", "delete_published_" + plural}, {"delete_others_posts", "delete_others_" + plural},
			{"edit_private_posts", "edit_private_" + plural}, {"edit_published_posts", "edit_published_" + plural}} {
			c.Set(kv[0], kv[1])
		}
	}
	for i := 0; i+1 < len(d.caps); i += 2 {
		c.Set(d.caps[i], d.caps[i+1])
	}
	if _, ok := c.Get("create_posts"); !ok {
		v, _ := c.Get("edit_posts")
		c.Set("create_posts", v)
	}
	return c
}

func orDefault(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

// postTypeEntry is the registered post type as the post types controller shows it in the edit
// context (registryItem picks the fields of other contexts); taxonomies are get_object_taxonomies
// of the type among those shown in REST.
func postTypeEntry(d postTypeDef, taxonomies []string) *phpjson.Object {
	mapMeta := d.mapMetaCap != nil && *d.mapMetaCap
	if d.mapMetaCap == nil && len(d.caps) == 0 && (d.capType[0] == "" || d.capType[0] == "post" || d.capType[0] == "page") {
		mapMeta = true // WP_Post_Type::set_props' back compat for post and page capability types
	}
	publiclyQueryable := orDefault(d.publiclyQueryable, d.public)
	showUI := orDefault(d.showUI, d.public)
	labels, own := customObjectLabels(d.name, d.label, d.labels, d.hierarchical, postTypeDefaultLabels)
	if _, given := own.Get("template_name"); !given {
		if s, ok := own.Get("singular_name"); ok {
			labels.Set("template_name", "Single item: "+s.(string))
		}
	}
	supports := phpjson.NewObject()
	if d.noSupportsArg {
		for _, f := range []string{"title", "editor", "autosave"} {
			supports.Set(f, true)
		}
	} else {
		for _, s := range d.supports {
			switch f := s.(type) {
			case string:
				supports.Set(f, true)
			case supportArgs:
				supports.Set(f.feature, []any{f.args})
			}
		}
		if _, editor := supports.Get("editor"); editor {
			if _, ok := supports.Get("autosave"); !ok {
				supports.Set("autosave", true)
			}
		}
	}
	for _, f := range d.removeSupports {
		supports.Delete(f)
	}
	restBase := d.restBase
	if restBase == "" {
		restBase = d.name
	}
	name, _ := labels.Get("name")
	return phpjson.Obj("capabilities", postTypeCaps(d, mapMeta), "description", d.description, "hierarchical", d.hierarchical,
		"has_archive", false, "visibility", phpjson.Obj("show_in_nav_menus", orDefault(d.showInNavMenus, d.public), "show_ui", showUI),
		"viewable", publiclyQueryable || (d.builtin && d.public), "labels", labels, "name", name, "slug", d.name, "icon", d.menuIcon,
		"supports", emptyObject(supports), "taxonomies", handlers.StrList(taxonomies...), "rest_base", restBase, "rest_namespace", "wp/v2",
		"template", []any{}, "template_lock", false)
}

// taxonomyEntryOf is the registered taxonomy as the taxonomies controller shows it in the edit
// context; types are its object types (register_taxonomy's, then register_taxonomy_for_object_type's).
func taxonomyEntryOf(d taxonomyDef, types []string) *phpjson.Object {
	showUI := orDefault(d.showUI, d.public)
	caps := phpjson.Obj("manage_terms", "manage_categories", "edit_terms", "manage_categories", "delete_terms", "manage_categories",
		"assign_terms", "edit_posts")
	for i := 0; i+1 < len(d.caps); i += 2 {
		caps.Set(d.caps[i], d.caps[i+1])
	}
	labels, _ := customObjectLabels(d.name, "", d.labels, d.hierarchical, taxonomyDefaultLabels)
	// 6.9's get_taxonomy_labels names the term archive template after the singular name.
	if s, ok := labels.Get("singular_name"); ok {
		if _, given := labels.Get("template_name"); !given {
			labels.Set("template_name", s.(string)+" Archives")
		}
	}
	name, _ := labels.Get("name")
	restBase := d.restBase
	if restBase == "" {
		restBase = d.name
	}
	return phpjson.Obj("name", name, "slug", d.name, "capabilities", caps, "description", d.description, "labels", labels,
		"types", handlers.StrList(types...), "show_cloud", orDefault(d.showTagcloud, showUI), "hierarchical", d.hierarchical,
		"rest_base", restBase, "rest_namespace", "wp/v2",
		"visibility", phpjson.Obj("public", d.public, "publicly_queryable", orDefault(d.publiclyQueryable, d.public),
			"show_admin_column", d.showAdminColumn, "show_in_nav_menus", orDefault(d.showInNavMenus, d.public),
			"show_in_quick_edit", showUI, "show_ui", showUI))
}
