package handlers_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/calendard/calendard/handlers"
)

// TestCoreMediaShowsAttachmentsAsWordPress: /wp/v2/media answers the media library read-only as
// WP_REST_Attachments_Controller does: an unattached attachment is public; one attached to a draft
// is readable only by those who may read the draft; files resolve under the uploads URL; sizes get
// their URLs; what calendard does not do answers 501.
func TestCoreMediaShowsAttachmentsAsWordPress(t *testing.T) {
	for name, st := range storeFixtures(t, handlers.Config{}) {
		// Image 5 attached to the draft event 102: it inherits the draft's visibility.
		if _, err := st.db.Exec("UPDATE wp_posts SET post_parent = 102 WHERE ID = 9"); err != nil {
			t.Fatal(err)
		}
		settle(t, st.srv)
		for _, tc := range []struct {
			name, method, path, user string
			status                   int
			check                    func(t *testing.T, a answer)
		}{
			{"unattached_image_is_public_with_its_file_and_sizes", "GET", "/wp-json/wp/v2/media/8", "", 200, func(t *testing.T, a answer) {
				want := map[string]any{"id": 8.0, "type": "attachment", "status": "inherit", "media_type": "image", "mime_type": "image/jpeg",
					"source_url": "http://127.0.0.1:8088/wp-content/uploads/2026/11/image-4.jpg", "link": "http://127.0.0.1:8088/image-4/", "post": nil}
				for k, v := range want {
					if a.body[k] != v {
						t.Errorf("%s = %v, want %v", k, a.body[k], v)
					}
				}
				details, _ := a.body["media_details"].(map[string]any)
				sizes, _ := details["sizes"].(map[string]any)
				thumb, _ := sizes["thumbnail"].(map[string]any)
				full, _ := sizes["full"].(map[string]any)
				if thumb["source_url"] != "http://127.0.0.1:8088/wp-content/uploads/2026/11/image-4-150x150.jpg" || thumb["mime_type"] != "image/jpeg" {
					t.Errorf("thumbnail = %v", thumb)
				}
				if _, renamed := thumb["mime-type"]; renamed {
					t.Error("thumbnail keeps mime-type")
				}
				if full["width"] != details["width"] || full["file"] != "image-4.jpg" {
					t.Errorf("full = %v, details %v", full, details)
				}
				if !strings.Contains(a.header.Get("Link"), `<http://127.0.0.1:8088/image-4/>; rel="alternate"`) {
					t.Errorf("Link = %q", a.header.Get("Link"))
				}
				if _, has := a.body["content"]; has {
					t.Error("an attachment shows content")
				}
			}},
			{"caption_and_alt_text_rendered", "GET", "/wp-json/wp/v2/media/6", "", 200, func(t *testing.T, a answer) {
				caption, _ := a.body["caption"].(map[string]any)
				if caption["rendered"] != "<p>Caption 2</p>\n" {
					t.Errorf("caption = %v", caption)
				}
				if _, raw := caption["raw"]; raw {
					t.Error("raw caption outside the edit context")
				}
			}},
			{"attached_to_a_draft_hidden_from_visitors", "GET", "/wp-json/wp/v2/media/9", "", 401, func(t *testing.T, a answer) {
				if a.body["code"] != "rest_forbidden" {
					t.Errorf("code = %v", a.body["code"])
				}
			}},
			{"attached_to_a_draft_readable_by_its_editors", "GET", "/wp-json/wp/v2/media/9", "admin", 200, func(t *testing.T, a answer) {
				if a.body["post"] != 102.0 {
					t.Errorf("post = %v", a.body["post"])
				}
			}},
			{"edit_context_for_editors_only", "GET", "/wp-json/wp/v2/media/8?context=edit", "subscriber", 403, func(t *testing.T, a answer) {
				if a.body["code"] != "rest_forbidden_context" {
					t.Errorf("code = %v", a.body["code"])
				}
			}},
			{"edit_context_shows_raw_fields", "GET", "/wp-json/wp/v2/media/8?context=edit", "admin", 200, func(t *testing.T, a answer) {
				title, _ := a.body["title"].(map[string]any)
				if title["raw"] != "Image 4" {
					t.Errorf("title = %v", title)
				}
			}},
			{"an_event_is_not_media", "GET", "/wp-json/wp/v2/media/34", "", 404, func(t *testing.T, a answer) {
				if a.body["code"] != "rest_post_invalid_id" {
					t.Errorf("code = %v", a.body["code"])
				}
			}},
			{"list_counts_what_visitors_cannot_read_but_leaves_it_out", "GET", "/wp-json/wp/v2/media?per_page=100", "", 200, func(t *testing.T, a answer) {
				var items []map[string]any
				if err := json.Unmarshal([]byte(a.raw), &items); err != nil {
					t.Fatal(err)
				}
				if a.header.Get("X-WP-Total") != "5" || len(items) != 4 {
					t.Errorf("X-WP-Total %s, %d items", a.header.Get("X-WP-Total"), len(items))
				}
				for _, it := range items {
					if it["id"] == 9.0 {
						t.Error("the draft's attachment is listed")
					}
				}
			}},
			{"search_matches_the_file_name", "GET", "/wp-json/wp/v2/media?search=image-4.jpg", "", 200, func(t *testing.T, a answer) {
				var items []map[string]any
				if err := json.Unmarshal([]byte(a.raw), &items); err != nil || len(items) != 1 || items[0]["id"] != 8.0 {
					t.Errorf("answer %s", a.raw)
				}
			}},
			{"list_by_parent", "GET", "/wp-json/wp/v2/media?parent=102", "admin", 200, func(t *testing.T, a answer) {
				if a.header.Get("X-WP-Total") != "1" {
					t.Errorf("X-WP-Total %s: %s", a.header.Get("X-WP-Total"), a.raw)
				}
			}},
			{"other_statuses_forbidden_to_visitors", "GET", "/wp-json/wp/v2/media?status=private", "", 400, func(t *testing.T, a answer) {
				if a.body["code"] != "rest_invalid_param" {
					t.Errorf("code = %v", a.body["code"])
				}
			}},
			{"type_filters_not_served", "GET", "/wp-json/wp/v2/media?media_type=image", "", 501, nil},
			{"uploads_not_served", "POST", "/wp-json/wp/v2/media", "admin", 501, nil},
			{"uploads_refused_to_subscribers", "POST", "/wp-json/wp/v2/media", "subscriber", 403, nil},
		} {
			t.Run(name+"_"+tc.name, func(t *testing.T) {
				a := call(t, st.srv, tc.method, tc.path, nil, tc.user)
				if a.status != tc.status {
					t.Fatalf("status %d, want %d: %s", a.status, tc.status, a.raw)
				}
				if tc.check != nil {
					tc.check(t, a)
				}
			})
		}
	}
}

// TestCoreMediaFollowsTheUploadsURL: upload_url_path moves every file URL, as wp_upload_dir does.
func TestCoreMediaFollowsTheUploadsURL(t *testing.T) {
	srv, _, _ := serveFixture(t, handlers.Config{Environment: "local"}, "mu",
		"UPDATE %s.wp_options SET option_value = 'https://cdn.example.org/files' WHERE option_name = 'upload_url_path'")
	a := call(t, srv, "GET", "/wp-json/wp/v2/media/8", nil, "")
	if a.body["source_url"] != "https://cdn.example.org/files/2026/11/image-4.jpg" {
		t.Errorf("source_url = %v", a.body["source_url"])
	}
}
