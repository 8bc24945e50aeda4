package wptext

import (
	"encoding/json"
	"html"
	"os"
	"regexp"
	"testing"
)

// vectorFile is testdata/vectors.json, generated from the recorded
// reference responses by testdata/gen/gen_vectors.py.
type vectorFile struct {
	Title             []textVector     `json:"title"`
	Content           []textVector     `json:"content"`
	Excerpt           []textVector     `json:"excerpt"`
	JSONLDName        []nameVector     `json:"jsonld_name"`
	JSONLDDescription []jsonldVector   `json:"jsonld_description"`
	Antispambot       []textVector     `json:"antispambot"`
	Slug              []textVector     `json:"slug"`
	ContentSequences  []sequenceVector `json:"content_sequences"`
}

type textVector struct {
	Case string `json:"case"`
	ID   int    `json:"id"`
	Raw  string `json:"raw"`
	Want string `json:"want"`
}

type nameVector struct {
	Case     string `json:"case"`
	ID       int    `json:"id"`
	Raw      string `json:"raw"`
	Status   string `json:"status"`
	Password bool   `json:"password"`
	Want     string `json:"want"`
}

type jsonldVector struct {
	Case    string `json:"case"`
	ID      int    `json:"id"`
	Excerpt string `json:"excerpt"`
	Content string `json:"content"`
	Want    string `json:"want"`
}

type sequenceVector struct {
	Case  string `json:"case"`
	Items []struct {
		Raw  string  `json:"raw"`
		Want *string `json:"want"` // nil: rendered but redacted in the response
	} `json:"items"`
}

const refHome = "http://127.0.0.1:8088"

func loadVectors(t testing.TB) vectorFile {
	t.Helper()
	b, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatalf("read vectors: %v", err)
	}
	var v vectorFile
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("parse vectors: %v", err)
	}
	if len(v.Title) == 0 || len(v.Content) == 0 || len(v.JSONLDDescription) == 0 {
		t.Fatalf("vectors file looks empty")
	}
	return v
}

func TestRecordedVectors(t *testing.T) {
	v := loadVectors(t)
	t.Run("titles render like the_title", func(t *testing.T) {
		for _, c := range v.Title {
			if got := Title(c.Raw); got != c.Want {
				t.Errorf("%s (post %d): Title(%q)\n got %q\nwant %q", c.Case, c.ID, c.Raw, got, c.Want)
			}
		}
	})
	t.Run("contents render like the_content in a fresh request", func(t *testing.T) {
		for _, c := range v.Content {
			if got := Content(c.Raw, NewRenderContext(refHome)); got != c.Want {
				t.Errorf("%s (post %d): Content(%q)\n got %q\nwant %q", c.Case, c.ID, c.Raw, got, c.Want)
			}
		}
	})
	t.Run("excerpts render like the_excerpt", func(t *testing.T) {
		for _, c := range v.Excerpt {
			if got := Excerpt(c.Raw); got != c.Want {
				t.Errorf("%s (post %d): Excerpt(%q)\n got %q\nwant %q", c.Case, c.ID, c.Raw, got, c.Want)
			}
		}
	})
	t.Run("JSON-LD names are the esc_js'd get_the_title()", func(t *testing.T) {
		for _, c := range v.JSONLDName {
			if got := JSONLDText(GetTheTitle(c.Raw, c.Status, c.Password)); got != c.Want {
				t.Errorf("%s (post %d): name for %q\n got %q\nwant %q", c.Case, c.ID, c.Raw, got, c.Want)
			}
		}
	})
	t.Run("JSON-LD descriptions match TEC", func(t *testing.T) {
		for _, c := range v.JSONLDDescription {
			if got := JSONLDDescription(c.Excerpt, c.Content); got != c.Want {
				t.Errorf("%s (post %d): JSONLDDescription(%q, %q)\n got %q\nwant %q", c.Case, c.ID, c.Excerpt, c.Content, got, c.Want)
			}
		}
	})
	t.Run("antispambot output decodes to the stored email", func(t *testing.T) {
		for _, c := range v.Antispambot {
			if html.UnescapeString(c.Want) != c.Raw {
				t.Fatalf("vector %q does not decode to %q", c.Want, c.Raw)
			}
			got := Antispambot(c.Raw)
			if html.UnescapeString(got) != c.Raw {
				t.Errorf("Antispambot(%q) = %q, decodes to %q", c.Raw, got, html.UnescapeString(got))
			}
		}
	})
	t.Run("slugs match sanitize_title up to a uniqueness suffix", func(t *testing.T) {
		for _, c := range v.Slug {
			got := SanitizeTitle(c.Raw)
			if got != c.Want && !regexp.MustCompile(`^`+regexp.QuoteMeta(got)+`-[0-9]+$`).MatchString(c.Want) {
				t.Errorf("SanitizeTitle(%q) = %q, stored slug %q", c.Raw, got, c.Want)
			}
		}
	})
	t.Run("shortcode instance counters advance across one request", func(t *testing.T) {
		for _, s := range v.ContentSequences {
			rc := NewRenderContext(refHome)
			for i, it := range s.Items {
				got := Content(it.Raw, rc)
				if it.Want != nil && got != *it.Want {
					t.Errorf("%s item %d: Content(%q)\n got %q\nwant %q", s.Case, i, it.Raw, got, *it.Want)
				}
			}
		}
	})
}
