package handlers_test

import (
	"strconv"
	"testing"

	"github.com/calendard/calendard/handlers"
)

// setMeta replaces a post's values of key (none when vals is empty), in SQL both stores run, and
// lets f's store take the change in.
func setMeta(t *testing.T, f storeFixture, id int64, key string, vals ...string) {
	t.Helper()
	db := f.db
	defer settle(t, f.srv)
	if _, err := db.Exec("DELETE FROM wp_postmeta WHERE post_id = ? AND meta_key = ?", id, key); err != nil {
		t.Fatal(err)
	}
	for _, v := range vals {
		if _, err := db.Exec("INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (?, ?, ?)", id, key, v); err != nil {
			t.Fatal(err)
		}
	}
}

// setStatus sets a post's status directly and lets f's store take the change in.
func setStatus(t *testing.T, f storeFixture, id int64, status string) {
	t.Helper()
	defer settle(t, f.srv)
	if _, err := f.db.Exec("UPDATE wp_posts SET post_status = ? WHERE ID = ?", status, id); err != nil {
		t.Fatal(err)
	}
}

// jsonLD returns the json_ld of a single event read as user (nil when absent).
func jsonLD(t *testing.T, f storeFixture, id int64, user string) map[string]any {
	t.Helper()
	a := call(t, f.srv, "GET", eventsPath+"/"+strconv.FormatInt(id, 10), nil, user)
	if a.status != 200 {
		t.Fatalf("GET event %d as %q: %d %.200s", id, user, a.status, a.raw)
	}
	ld, _ := a.body["json_ld"].(map[string]any)
	return ld
}

// The JSON-LD rules of Tribe__JSON_LD__Abstract::get_data and the venue and organizer generators.
func TestJSONLDRules(t *testing.T) {
	for store, f := range storeFixtures(t, handlers.Config{}) {
		// Event 34 (published, the admin's) with venue 10 and organizer 22.
		setMeta(t, f, 34, "_EventVenueID", "10")
		setMeta(t, f, 34, "_EventOrganizerID", "22")

		t.Run(store+"/presence per status and role", func(t *testing.T) {
			// 90: the author's private event; 51: the contributor's private one; 39: the editor's
			// private one; 113: the author's draft; 102: the admin's draft.
			for _, tc := range []struct {
				name string
				id   int64
				user string
				want bool
			}{
				{"visitor gets it for a published event", 34, "", true},
				{"subscriber gets it for a published event", 34, "subscriber", true},
				{"author gets none for an own private event (no read_private_posts)", 90, "author", false},
				{"contributor gets none for an own private event", 51, "contributor", false},
				{"editor gets it for another's private event", 90, "editor", true},
				{"admin gets it for a private event", 39, "admin", true},
				{"editor gets it for an own private event", 39, "editor", true},
				{"author gets it for an own draft (read)", 113, "author", true},
				{"editor gets it for another's draft", 102, "editor", true},
				{"admin gets it for an own draft", 102, "admin", true},
			} {
				t.Run(tc.name, func(t *testing.T) {
					if got := jsonLD(t, f, tc.id, tc.user) != nil; got != tc.want {
						t.Errorf("json_ld present = %v, want %v", got, tc.want)
					}
				})
			}
		})

		t.Run(store+"/linked venue by its own status", func(t *testing.T) {
			for _, tc := range []struct {
				name, status, user string
				want               bool
			}{
				{"draft venue: none for a visitor", "draft", "", false},
				{"draft venue: a subscriber reads it", "draft", "subscriber", true},
				{"private venue: none for a subscriber", "private", "subscriber", false},
				{"private venue: none for an author", "private", "author", false},
				{"private venue: an editor reads it", "private", "editor", true},
			} {
				t.Run(tc.name, func(t *testing.T) {
					setStatus(t, f, 10, tc.status)
					defer setStatus(t, f, 10, "publish")
					ld := jsonLD(t, f, 34, tc.user)
					loc, isObj := ld["location"].(map[string]any)
					if isObj != tc.want || (!tc.want && ld["location"] != false) {
						t.Errorf("location = %v, want object: %v", ld["location"], tc.want)
					}
					if isObj && loc["@type"] != "Place" {
						t.Errorf("location %v", loc)
					}
				})
			}
		})

		t.Run(store+"/addressRegion by the plugin's region rule", func(t *testing.T) {
			for _, tc := range []struct {
				name                                    string
				country, state, province, stateProvince string
				region, addrCountry                     any // nil: key absent
			}{
				{"state/province wins over the US state", "United States", "IL", "", "Illinois", "Illinois", "United States"},
				{"state/province wins outside the US", "Canada", "", "ON", "Ontario", "Ontario", "Canada"},
				{"state/province is taken as stored, not escaped", "United States", "NY", "", "New York & Co", "New York & Co", "United States"},
				{"without state/province the US uses the state, escaped", "United States", "R&I", "Prov", "", "R&amp;I", "United States"},
				{"without state/province elsewhere the province, escaped", "Spain", "ST", "Castilla & León", "", "Castilla &amp; León", "Spain"},
				{"a state/province of 0 is falsy", "Spain", "", "Madrid", "0", "Madrid", "Spain"},
				{"a falsy region is left out", "France", "", "0", "", nil, "France"},
				{"a serialized country array gives its last element", `a:2:{i:0;s:2:"US";i:1;s:13:"United States";}`, "TX", "Prov", "", "TX", "United States"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					setMeta(t, f, 10, "_VenueCountry", tc.country)
					setMeta(t, f, 10, "_VenueState", tc.state)
					setMeta(t, f, 10, "_VenueProvince", tc.province)
					setMeta(t, f, 10, "_VenueStateProvince", tc.stateProvince)
					loc, _ := jsonLD(t, f, 34, "")["location"].(map[string]any)
					addr, _ := loc["address"].(map[string]any)
					if addr == nil {
						t.Fatalf("no address in %v", loc)
					}
					if got := addr["addressRegion"]; got != tc.region {
						t.Errorf("addressRegion = %#v, want %#v", got, tc.region)
					}
					if got := addr["addressCountry"]; got != tc.addrCountry {
						t.Errorf("addressCountry = %#v, want %#v", got, tc.addrCountry)
					}
				})
			}
		})

		t.Run(store+"/organizer url and sameAs through esc_url", func(t *testing.T) {
			for _, tc := range []struct{ name, stored, want string }{
				{"a full URL is kept", "https://jazz.example.org/team", "https://jazz.example.org/team"},
				{"a missing scheme becomes http://", "jazz.example.org", "http://jazz.example.org"},
				{"spaces are encoded", "https://jazz.example.org/our team", "https://jazz.example.org/our%20team"},
				{"leading blanks go, the scheme is added", "  www.jazz.example/a b", "http://www.jazz.example/a%20b"},
				{"ampersands come out as &#038; (esc_html, then esc_url's display form)", "jazz.example/?a=1&b=2", "http://jazz.example/?a=1&#038;b=2"},
				{"braces go, markup stays escaped", "https://jazz.example/<x>\"{y}", "https://jazz.example/&lt;x&gt;&quot;y"},
				{"a disallowed protocol empties it", "javascript:alert(1)", ""},
				{"an empty website stays empty", "", ""},
			} {
				t.Run(tc.name, func(t *testing.T) {
					setMeta(t, f, 22, "_OrganizerWebsite", tc.stored)
					org, _ := jsonLD(t, f, 34, "")["organizer"].(map[string]any)
					if org == nil {
						t.Fatal("no organizer JSON-LD")
					}
					if org["url"] != tc.want || org["sameAs"] != tc.want {
						t.Errorf("url %#v sameAs %#v, want %#v", org["url"], org["sameAs"], tc.want)
					}
				})
			}
		})
	}
}
