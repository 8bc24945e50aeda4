package handlers_test

import (
	"encoding/json"
	"testing"

	"github.com/calendard/calendard/handlers"
)

// TestCoreEmbedFetchesLinkedResources: _embed places the answers of a post's embeddable links
// (its author, its terms per taxonomy) under _embedded, as the same user would get them in the
// embed context; _embed=<rel> embeds that relation only.
func TestCoreEmbedFetchesLinkedResources(t *testing.T) {
	for name, st := range storeFixtures(t, handlers.Config{}) {
		t.Run(name+"_embeds_author_and_terms", func(t *testing.T) {
			a := call(t, st.srv, "GET", "/wp-json/wp/v2/tribe_events/34?_embed=1", nil, "")
			emb, _ := a.body["_embedded"].(map[string]any)
			authors, _ := emb["author"].([]any)
			if len(authors) != 1 {
				t.Fatalf("_embedded = %s", a.raw)
			}
			author, _ := authors[0].(map[string]any)
			if author["id"] != a.body["author"] || author["slug"] == "" || author["avatar_urls"] == nil {
				t.Errorf("embedded author %v for author %v", author, a.body["author"])
			}
			if _, private := author["email"]; private {
				t.Error("embedded author shows the email")
			}
			terms, _ := emb["wp:term"].([]any)
			if len(terms) != 2 {
				t.Fatalf("wp:term = %v, want one list per taxonomy", emb["wp:term"])
			}
			cats, _ := terms[1].([]any)
			ids, _ := a.body["tribe_events_cat"].([]any)
			if len(cats) != len(ids) || len(ids) == 0 {
				t.Errorf("embedded categories %v, post's %v", cats, ids)
			}
		})
		t.Run(name+"_embeds_only_the_relation_asked", func(t *testing.T) {
			a := call(t, st.srv, "GET", "/wp-json/wp/v2/tribe_events?per_page=2&_embed=author", nil, "")
			var items []map[string]any
			if err := json.Unmarshal([]byte(a.raw), &items); err != nil || len(items) != 2 {
				t.Fatalf("status %d: %s", a.status, a.raw)
			}
			for _, it := range items {
				emb, _ := it["_embedded"].(map[string]any)
				if _, ok := emb["author"]; !ok || len(emb) != 1 {
					t.Errorf("post %v: _embedded has %v", it["id"], emb)
				}
			}
		})
	}
}

// TestCoreUsersShowOnlyAuthors: a user's public profile is visible to anyone when they have
// published posts, to themselves, and to those who may list users; unknown users are 404.
func TestCoreUsersShowOnlyAuthors(t *testing.T) {
	st := storeFixtures(t, handlers.Config{})["mysql"]
	for _, tc := range []struct {
		name, path, user string
		status           int
		code             string
	}{
		{"author_of_published_posts_visible_to_visitors", "/wp-json/wp/v2/users/1", "", 200, ""},
		{"user_without_posts_hidden_from_visitors", "/wp-json/wp/v2/users/5", "", 401, "rest_user_cannot_view"},
		{"user_without_posts_visible_to_themselves", "/wp-json/wp/v2/users/5", "subscriber", 200, ""},
		{"user_without_posts_visible_to_admins", "/wp-json/wp/v2/users/5", "admin", 200, ""},
		{"unknown_user_not_found", "/wp-json/wp/v2/users/999", "", 404, "rest_user_invalid_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := call(t, st.srv, "GET", tc.path, nil, tc.user)
			if a.status != tc.status || (tc.code != "" && a.body["code"] != tc.code) {
				t.Errorf("status %d %s, want %d %s", a.status, a.raw, tc.status, tc.code)
			}
		})
	}
}
