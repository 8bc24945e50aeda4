package handlers_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/calendard/calendard/handlers"
)

var tagRe = regexp.MustCompile(`<[^>]*>`)

// excerptWords is the words of a rendered excerpt, tags and the trailing " [&hellip;]" removed,
// and whether the excerpt was cut.
func excerptWords(rendered string) ([]string, bool) {
	text := strings.TrimSpace(tagRe.ReplaceAllString(rendered, ""))
	cut := strings.HasSuffix(text, "[&hellip;]")
	return strings.Fields(strings.TrimSuffix(text, "[&hellip;]")), cut
}

// TestCoreExcerptLengthCutsMadeExcerpts: excerpt_length sets how many words of the content an
// excerpt made by wp_trim_excerpt keeps (the excerpt_length filter), on singles and lists;
// a value the single route's schema refuses is a 400.
func TestCoreExcerptLengthCutsMadeExcerpts(t *testing.T) {
	st := storeFixtures(t, handlers.Config{})["sqlite"]
	excerptOf := func(t *testing.T, a answer) string {
		ex, _ := a.body["excerpt"].(map[string]any)
		s, _ := ex["rendered"].(string)
		return s
	}
	// A published event of 70 words and no excerpt: its excerpt is made from the content.
	var words []string
	for i := 1; i <= 70; i++ {
		words = append(words, "word"+strconv.Itoa(i))
	}
	created := call(t, st.srv, "POST", "/wp-json/wp/v2/tribe_events", map[string]any{"title": "Long", "status": "publish",
		"content": strings.Join(words, " ")}, "admin")
	if created.status != 201 {
		t.Fatalf("create: status %d %s", created.status, created.raw)
	}
	id := strconv.FormatFloat(created.body["id"].(float64), 'f', -1, 64)
	full := call(t, st.srv, "GET", "/wp-json/wp/v2/tribe_events/"+id, nil, "")
	fullWords, _ := excerptWords(excerptOf(t, full))
	if len(fullWords) != 55 {
		t.Fatalf("default excerpt has %d words: %s", len(fullWords), excerptOf(t, full))
	}
	fullWords = words
	for _, tc := range []struct {
		name, query string
		words       int
		cut         bool
	}{
		{"three_words_kept_and_cut", "excerpt_length=3", 3, true},
		{"default_length_is_55", "excerpt_length=55", 55, true},
		{"zero_keeps_only_the_more_string", "excerpt_length=0", 0, true},
		{"sixty_keeps_more", "excerpt_length=60", 60, true},
		{"above_the_word_count_keeps_all", "excerpt_length=100", 70, false},
		{"minus_one_drops_the_last_word", "excerpt_length=-1", 69, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := call(t, st.srv, "GET", "/wp-json/wp/v2/tribe_events/"+id+"?"+tc.query, nil, "")
			words, cut := excerptWords(excerptOf(t, a))
			if len(words) != tc.words || cut != tc.cut || strings.Join(words, " ") != strings.Join(fullWords[:tc.words], " ") {
				t.Errorf("excerpt %q: %d words, cut %v; want %d, %v", excerptOf(t, a), len(words), cut, tc.words, tc.cut)
			}
		})
	}
	t.Run("not_an_integer_refused_on_singles", func(t *testing.T) {
		if a := call(t, st.srv, "GET", "/wp-json/wp/v2/tribe_events/"+id+"?excerpt_length=abc", nil, ""); a.status != 400 || a.body["code"] != "rest_invalid_param" {
			t.Errorf("status %d %s", a.status, a.raw)
		}
	})
	t.Run("lists_cut_made_excerpts", func(t *testing.T) {
		venue := call(t, st.srv, "POST", "/wp-json/wp/v2/tribe_venue", map[string]any{"title": "Long venue", "status": "publish",
			"content": strings.Join(words, " ")}, "admin")
		if venue.status != 201 {
			t.Fatalf("create venue: status %d %s", venue.status, venue.raw)
		}
		vid := strconv.FormatFloat(venue.body["id"].(float64), 'f', -1, 64)
		a := call(t, st.srv, "GET", "/wp-json/wp/v2/tribe_venue?include="+vid+"&excerpt_length=2&_fields=id,excerpt", nil, "")
		var items []map[string]any
		if err := json.Unmarshal([]byte(a.raw), &items); err != nil || len(items) != 1 {
			t.Fatalf("status %d: %s", a.status, a.raw)
		}
		ex, _ := items[0]["excerpt"].(map[string]any)
		s, _ := ex["rendered"].(string)
		if words, cut := excerptWords(s); !cut || strings.Join(words, " ") != "word1 word2" {
			t.Errorf("excerpt %q", s)
		}
	})
}
