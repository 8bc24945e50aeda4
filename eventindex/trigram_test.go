package eventindex

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/collation"
)

// A corpus of texts that the collation folds in many ways: case, accents, expansions, multibyte
// runes of every length, HTML, and words rare enough for the text index to narrow a search.
var trickyWords = []string{"Café", "CAFE", "cafe\u0301", "naïve", "NAIVE", "Straße", "strasse", "İstanbul",
	"ǅungla", "日本語", "にほん", "🎉party", "ﬁnal", "Ærø", "œuvre", "<p>", "</p>", "<!-- wp:paragraph -->",
	"the", "and", "of", "a", "an", "Jazz", "jazz", "night", "Night", "midnight", "nightly", "open-air", "ÅSA",
	"Zürich", "zurich", "ΣΊΣΥΦΟΣ", "σίσυφος", "ß", "ss", "x", "xy", "xyz"}

type textEvent struct {
	cols   [3]string // title, excerpt, content
	folded [3]string // cols under collation.LikeFold
	start  time.Time
	draft  bool
}

func randomColumn(r *rand.Rand, words int) string {
	var b strings.Builder
	for i := 0; i < words; i++ {
		if i > 0 {
			b.WriteString([]string{" ", " ", "\n", "", "-"}[r.IntN(5)])
		}
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, "q%dv", r.IntN(400)) // a rare token: a few events each
		} else {
			b.WriteString(trickyWords[r.IntN(len(trickyWords))])
		}
	}
	return b.String()
}

func (te *textEvent) event(id int64) *Event {
	e := &Event{id: id}
	e.setStatus(map[bool]string{false: "publish", true: "draft"}[te.draft])
	e.postDateN = id
	e.rows = []dateRow{newRow(te.start.Format(calendard.DBDateTime), te.start.Add(time.Hour).Format(calendard.DBDateTime))}
	e.text = string(appendSearchHead(nil, te.cols[0], te.cols[1]))
	e.body = collation.LikeFold(te.cols[2])
	return e
}

func randomTextEvent(r *rand.Rand) *textEvent {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	te := &textEvent{
		cols:  [3]string{randomColumn(r, 1+r.IntN(4)), randomColumn(r, r.IntN(3)), randomColumn(r, r.IntN(25))},
		start: base.Add(time.Duration(r.IntN(24*365)) * time.Hour),
		draft: r.IntN(8) == 0,
	}
	for i, c := range te.cols {
		te.folded[i] = collation.LikeFold(c)
	}
	return te
}

// likeMatches is the plugin's search on one event as SQL runs it: every term not excluded is in
// some column, no excluded term in any (LIKE '%term%' per column under the collation). The terms
// are folded (foldTerms).
func likeMatches(te *textEvent, terms []calendard.SearchTerm) bool {
	for _, t := range terms {
		in := false
		for _, c := range te.folded {
			in = in || strings.Contains(c, t.Text)
		}
		if in == t.Exclude {
			return false
		}
	}
	return true
}

func foldTerms(terms []calendard.SearchTerm) []calendard.SearchTerm {
	out := slices.Clone(terms)
	for i := range out {
		out[i].Text = collation.LikeFold(out[i].Text)
	}
	return out
}

// randomTerms draws 1-3 terms: pieces of the calendar's columns (in another case at times), pieces
// spanning the end of a title and the start of its excerpt, 1-2 byte terms, and absent words; a
// quarter excluded.
func randomTerms(r *rand.Rand, events map[int64]*textEvent, ids []int64) []calendard.SearchTerm {
	var terms []calendard.SearchTerm
	for n := 1 + r.IntN(3); n > 0; n-- {
		te := events[ids[r.IntN(len(ids))]]
		var text string
		switch k := r.IntN(10); {
		case k < 5:
			c := []rune(te.cols[r.IntN(3)])
			if len(c) == 0 {
				c = []rune("night")
			}
			from := r.IntN(len(c))
			text = string(c[from:min(len(c), from+1+r.IntN(8))])
		case k < 7:
			t, x := []rune(te.cols[0]), []rune(te.cols[1])
			text = string(t[max(0, len(t)-1-r.IntN(3)):]) + string(x[:min(len(x), 1+r.IntN(3))])
		case k < 9:
			text = []string{"a", "e", "é", "ss", "ß", "xy", "q1", "日", "ni"}[r.IntN(9)]
		default:
			text = []string{"zzqx", "q999v", "jazz nightly", "CAFÉ NIGHT"}[r.IntN(4)]
		}
		if r.IntN(3) == 0 {
			text = strings.ToUpper(text)
		}
		if strings.TrimSpace(text) == "" {
			text = "nig"
		}
		terms = append(terms, calendard.SearchTerm{Text: text, Exclude: r.IntN(4) == 0})
	}
	return terms
}

// TestTextIndexSearchesAsLIKE holds searches answered through the trigram index to the plugin's
// LIKE search, term by term and column by column: the same total and page for random terms
// (multibyte, case and accents under the collation, 1-2 byte terms, terms spanning two columns,
// exclusions), on a compiled snapshot and on the snapshots patches make of it (events added,
// removed and rewritten); the IDs-only search too.
func TestTextIndexSearchesAsLIKE(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	site := &calendard.Site{UseCustomTables: true}
	texts := map[int64]*textEvent{}
	events := map[int64]*Event{}
	for id := int64(1); id <= 3000; id++ {
		texts[id] = randomTextEvent(r)
		events[id] = texts[id].event(id)
	}
	s := compile(Mode{CustomTables: true}, events, 4)
	s.tix.wait()
	if s.tix.ready() == nil {
		t.Fatal("no text index after the compile")
	}
	narrowed, scanned := 0, 0
	check := func(s *snapshot, round string) {
		ids := slices.Sorted(func(yield func(int64) bool) {
			for id := range texts {
				if !yield(id) {
					return
				}
			}
		})
		for i := 0; i < 400; i++ {
			terms := randomTerms(r, texts, ids)
			f := calendard.EventFilter{Statuses: []string{"publish"}, Search: terms, Limit: 10, Offset: 5 * r.IntN(3)}
			q, ok := s.prepare(site, &f)
			if !ok {
				t.Fatal("declined")
			}
			if _, ok := s.searchPositions(q); ok {
				narrowed++
			} else {
				scanned++
			}
			got, total := s.find(q)
			var want []int64
			folded := foldTerms(terms)
			for _, id := range ids {
				if te := texts[id]; !te.draft && likeMatches(te, folded) {
					want = append(want, id)
				}
			}
			slices.SortFunc(want, func(a, b int64) int {
				return cmp.Or(texts[a].start.Compare(texts[b].start), cmp.Compare(a, b))
			})
			wantTotal := len(want)
			want = want[min(len(want), f.Offset):min(len(want), f.Offset+f.Limit)]
			if total != wantTotal || !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("%s: search %+v: index %d %v, LIKE %d %v", round, terms, total, got, wantTotal, want)
			}
			// The IDs-only search: every status, excluded terms ignored.
			var positive []calendard.SearchTerm
			for _, term := range terms {
				if !term.Exclude {
					positive = append(positive, term)
				}
			}
			x := &Index{}
			x.snap.Store(s)
			matches, _, ok := x.SearchMatches(site, positive)
			if !ok {
				t.Fatal("SearchMatches declined")
			}
			var wantIDs []int64
			folded = foldTerms(positive)
			for _, id := range ids {
				if likeMatches(texts[id], folded) {
					wantIDs = append(wantIDs, id)
				}
			}
			if !slices.Equal(matches, wantIDs) && !(len(matches) == 0 && len(wantIDs) == 0) {
				t.Fatalf("%s: SearchMatches %+v: index %v, LIKE %v", round, positive, matches, wantIDs)
			}
		}
	}
	check(s, "compiled")
	// Patches: a few events removed, rewritten (new text and date) and added, over several rounds,
	// so that later patches move the events earlier ones added.
	next := int64(3001)
	for round := 0; round < 4; round++ {
		fresh := map[int64]*Event{}
		var changed []int64
		for k := 0; k < 12; k++ {
			id := int64(1 + r.IntN(int(next-1)))
			if texts[id] == nil {
				continue
			}
			changed = append(changed, id)
			if k%3 == 0 {
				delete(texts, id)
				continue
			}
			texts[id] = randomTextEvent(r)
			fresh[id] = texts[id].event(id)
		}
		for k := 0; k < 8; k++ {
			texts[next] = randomTextEvent(r)
			fresh[next] = texts[next].event(next)
			changed = append(changed, next)
			next++
		}
		s = s.patched(changed, fresh)
		if len(s.unindexed) == 0 || s.slotPos == nil {
			t.Fatalf("round %d: the patch left no record of the events the text index does not cover", round)
		}
		check(s, fmt.Sprintf("patch %d", round))
	}
	if narrowed < 200 || scanned < 200 {
		t.Fatalf("%d searches narrowed by the text index, %d scanned: both paths must be exercised", narrowed, scanned)
	}
	// A rare token narrows to its few events, not the calendar.
	q, _ := s.prepare(site, &calendard.EventFilter{Statuses: []string{"publish"}, Search: calendard.ParseSearch("q123v"), Limit: 10})
	if pos, ok := s.searchPositions(q); !ok || len(pos) > len(s.main)/10 {
		t.Fatalf("a rare token: %d candidates (narrowed %v) of %d events", len(pos), ok, len(s.main))
	}
}

// The index's lists decode to exactly the slots that hold each trigram, dense buckets aside.
func TestTextIndexListsAreExact(t *testing.T) {
	texts := []string{"abcd", "bcde", "xxabc", "", "ab", "abc\xffdef", "cdef"}
	for rep := 0; rep < 7; rep++ { // slots far apart: multi-byte gaps
		texts = append(texts, strings.Repeat("z", 200)+fmt.Sprint(rep))
	}
	x := buildTextIndex(len(texts), func(i int) (string, string) { return texts[i], "" })
	for _, c := range []struct {
		term string
		want []int32
	}{{"abc", []int32{0, 2, 5}}, {"bcd", []int32{0, 1}}, {"abcd", []int32{0}}, {"c\xffd", []int32{5}}, {"qqq", nil}, {"cde", []int32{1, 6}}} {
		got, ok := x.candidates([]string{c.term})
		if !ok {
			t.Fatalf("%q: not narrowed", c.term)
		}
		if !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("%q: slots %v, want %v", c.term, got, c.want)
		}
	}
	if _, ok := x.candidates([]string{"ab"}); ok {
		t.Error("a term of two bytes narrowed")
	}
}

// A build split into ranges of slots, one goroutine each, writes the bytes of one pass over all
// slots: the lists' deltas run across the ranges' edges, and a bucket is dense by its whole count.
func TestTextIndexInRangesIsTheSameIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for _, n := range []int{0, 1, 5, 300, 5000} {
		texts := make([][2]string, n)
		for i := range texts {
			for j := range texts[i] {
				b := make([]byte, r.IntN(40))
				for k := range b {
					const alphabet = "abcdefgh ,;\xe9"
					b[k] = alphabet[r.IntN(len(alphabet))]
				}
				texts[i][j] = string(b)
			}
			if r.IntN(50) == 0 {
				texts[i][0] += strings.Repeat("q", 300) // a long gap before its next slot
			}
		}
		text := func(i int) (string, string) { return texts[i][0], texts[i][1] }
		one := buildTextIndexParts(n, 1, text)
		for _, parts := range []int{2, 3, 7} {
			got := buildTextIndexParts(n, parts, text)
			if !slices.Equal(got.off, one.off) || !slices.Equal(got.dense, one.dense) || !bytes.Equal(got.data, one.data) || got.shift != one.shift {
				t.Fatalf("%d slots in %d ranges: an index unlike the one-pass build (%d bytes against %d)", n, parts, len(got.data), len(one.data))
			}
		}
		if n > 0 && len(one.data) == 0 {
			t.Fatalf("%d slots: an empty index", n)
		}
	}
}

// waitTextIndex waits for the snapshot's text index (benchmarks measure searches through it).
func waitTextIndex(s *snapshot) { s.tix.wait() }
