package handlers_test

import (
	"testing"

	"github.com/calendard/calendard/handlers"
)

// The plugin's is_image (Tribe__Validator__Base) accepts a URL only from users with upload_files;
// from anyone else a non-numeric image is the 400 rest_invalid_param on image, before anything is
// stored. Image 5 of the fixture is an image attachment at imageURL.
func TestImageURLNeedsUploadFiles(t *testing.T) {
	const imageURL = "http://127.0.0.1:8088/wp-content/uploads/2026/11/image-5.jpg"
	event := func(image any) map[string]any {
		return map[string]any{"title": "Image rule", "start_date": "2027-05-10 10:00:00", "end_date": "2027-05-10 12:00:00", "image": image}
	}
	tests := []struct {
		name   string
		path   string
		body   map[string]any
		user   string
		status int
		image  float64 // the answer's image.id when stored
	}{
		{"contributor's image URL is refused", eventsPath, event(imageURL), "contributor", 400, 0},
		{"contributor's image URL on a new venue is refused", "/wp-json/tribe/events/v1/venues",
			map[string]any{"venue": "Image Hall", "image": imageURL}, "contributor", 400, 0},
		{"contributor's image URL on a new organizer is refused", "/wp-json/tribe/events/v1/organizers",
			map[string]any{"organizer": "Image Org", "image": imageURL}, "contributor", 400, 0},
		{"contributor's numeric-string image ID is accepted", eventsPath, event("9"), "contributor", 201, 9},
		{"author's image URL is accepted", eventsPath, event(imageURL), "author", 201, 9},
		{"editor's image URL is accepted", eventsPath, event(imageURL), "editor", 201, 9},
	}
	for store, f := range storeFixtures(t, handlers.Config{}) {
		for _, tc := range tests {
			t.Run(store+"/"+tc.name, func(t *testing.T) {
				before := rowCounts(t, f.db)
				a := call(t, f.srv, "POST", tc.path, tc.body, tc.user)
				if a.status != tc.status {
					t.Fatalf("status %d, want %d: %.300s", a.status, tc.status, a.raw)
				}
				if tc.status == 400 {
					data, _ := a.body["data"].(map[string]any)
					params, _ := data["params"].(map[string]any)
					if a.body["code"] != "rest_invalid_param" || a.body["message"] != "Invalid parameter(s): image" ||
						data["status"] != float64(400) || params["image"] != "Invalid parameter." || len(params) != 1 {
						t.Errorf("error body %.300s", a.raw)
					}
					if after := rowCounts(t, f.db); after != before {
						t.Errorf("refused write stored rows: %s → %s", before, after)
					}
					return
				}
				img, _ := a.body["image"].(map[string]any)
				if img["id"] != tc.image {
					t.Errorf("image %v, want id %v", a.body["image"], tc.image)
				}
			})
		}
	}
}
