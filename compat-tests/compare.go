package compattests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// KeptHeaders are the response headers the sets record; all others are ignored.
var KeptHeaders = []string{"X-TEC-Total", "X-TEC-TotalPages", "X-WP-Total", "X-WP-TotalPages", "Allow", "Link", "Location", "Content-Type"}

// Diff is one difference between the reference answer and calendard's.
type Diff struct {
	Path      string
	Want, Got any
}

func (d Diff) String() string {
	return fmt.Sprintf("%s: want %s, got %s", d.Path, short(d.Want), short(d.Got))
}

func short(v any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// Rewriter applies comparison rule 1: the reference's site URL and namespace spelling are replaced
// by the service's own.
type Rewriter struct {
	FromURL, ToURL string
	FromNS, ToNS   string
}

func (rw Rewriter) str(s string) string {
	s = strings.ReplaceAll(s, rw.FromURL, rw.ToURL)
	return strings.ReplaceAll(s, rw.FromNS, rw.ToNS)
}

// Apply rewrites every string and object key of a decoded JSON value.
func (rw Rewriter) Apply(v any) any {
	switch x := v.(type) {
	case string:
		return rw.str(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = rw.Apply(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[rw.str(k)] = rw.Apply(e)
		}
		return out
	}
	return v
}

// decode parses JSON keeping numbers exact.
func decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// dbDateRe is a well-formed record date: the plugin's "YYYY-MM-DD HH:MM:SS" or wp/v2's
// "YYYY-MM-DDTHH:MM:SS" (mysql_to_rfc3339).
var dbDateRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}$`)

// compareOpts carries the per-case relaxations of rules 2 and 3.
type compareOpts struct {
	// changedIDs are post IDs the write changed: their record dates are compared as well-formed only.
	changedIDs map[string]bool
}

// compareJSON compares want and got as maps (key order free) and arrays (in order).
func compareJSON(path string, want, got any, o *compareOpts, diffs *[]Diff) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*diffs = append(*diffs, Diff{path, want, got})
			return
		}
		relaxDates := false
		if o != nil && o.changedIDs != nil {
			if id, ok := w["id"].(json.Number); ok && o.changedIDs[id.String()] {
				relaxDates = true
			}
		}
		for _, k := range unionKeys(w, g) {
			wv, wok := w[k]
			gv, gok := g[k]
			p := path + "." + k
			switch {
			case !wok:
				*diffs = append(*diffs, Diff{p, "(absent)", gv})
			case !gok:
				*diffs = append(*diffs, Diff{p, wv, "(absent)"})
			case relaxDates && (k == "date" || k == "date_utc" || k == "modified" || k == "modified_utc" ||
				k == "date_gmt" || k == "modified_gmt"):
				if s, ok := gv.(string); !ok || !dbDateRe.MatchString(s) {
					*diffs = append(*diffs, Diff{p, "(well-formed date)", gv})
				}
			case k == "email" && strings.Contains(path, ".json_ld"):
				ws, ok1 := wv.(string)
				gs, ok2 := gv.(string)
				if !ok1 || !ok2 || html.UnescapeString(ws) != html.UnescapeString(gs) {
					*diffs = append(*diffs, Diff{p, wv, gv})
				}
			default:
				compareJSON(p, wv, gv, o, diffs)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			*diffs = append(*diffs, Diff{path, want, got})
			return
		}
		n := max(len(w), len(g))
		for i := 0; i < n; i++ {
			p := path + "[" + strconv.Itoa(i) + "]"
			switch {
			case i >= len(w):
				*diffs = append(*diffs, Diff{p, "(absent)", g[i]})
			case i >= len(g):
				*diffs = append(*diffs, Diff{p, w[i], "(absent)"})
			default:
				compareJSON(p, w[i], g[i], o, diffs)
			}
		}
	case json.Number:
		// Exactly as written: 1 and 1.0 are an int and a float to a JSON client (rule 5).
		if g, ok := got.(json.Number); !ok || g != w {
			*diffs = append(*diffs, Diff{path, want, got})
		}
	default:
		if want != got {
			*diffs = append(*diffs, Diff{path, want, got})
		}
	}
}

// unionKeys is every key of a and b, sorted, so a comparison visits missing and extra keys alike.
func unionKeys[A, B any](a map[string]A, b map[string]B) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
