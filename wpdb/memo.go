package wpdb

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/calendard/calendard"
)

// The small read queries a request makes besides its page (post lookups of parameter validators and
// permission checks, venue and organizer lists, term queries) are answered once per change of the
// calendar: results are kept under a key of the method and its arguments, tagged with the change
// feed's generation read before the query ran, and every change empties them. Callers get copies
// of the slices, and the posts in them are never modified once loaded.

type memoEntry struct {
	gen uint64
	v   any
}

// maxMemoKey keeps huge arguments (a 100 KB search) out of the memo.
const maxMemoKey = 1024

// memo returns load's result for key, from the memo when it is current.
func memo[T any](s *Store, key string, load func() (T, error)) (T, error) {
	if s.memos == nil || !s.live.Load() || len(key) > maxMemoKey {
		return load()
	}
	gen := s.feed.Generation()
	if e, ok := s.memos.GetIfPresent(key); ok && e.gen == gen {
		return e.v.(T), nil
	}
	v, err := load()
	if err != nil {
		return v, err
	}
	s.memos.Set(key, memoEntry{gen: gen, v: v})
	return v, nil
}

// memoKey spells arguments unambiguously: every part is length-prefixed.
func memoKey(parts ...any) string {
	var b strings.Builder
	add := func(s string) {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	for _, p := range parts {
		switch x := p.(type) {
		case string:
			add(x)
		case int:
			add(strconv.Itoa(x))
		case int64:
			add(strconv.FormatInt(x, 10))
		case bool:
			add(strconv.FormatBool(x))
		case *int64:
			if x == nil {
				add("nil")
			} else {
				add("&" + strconv.FormatInt(*x, 10))
			}
		case *string:
			if x == nil {
				add("nil")
			} else {
				add("&" + *x)
			}
		case []int64:
			if x == nil {
				add("nil")
				continue
			}
			ids := make([]string, len(x))
			for i, id := range x {
				ids[i] = strconv.FormatInt(id, 10)
			}
			add("[" + strings.Join(ids, ",") + "]")
		case []string:
			if x == nil {
				add("nil")
				continue
			}
			parts := make([]string, len(x))
			for i, s := range x {
				parts[i] = strconv.Itoa(len(s)) + ":" + s
			}
			add("[" + strings.Join(parts, ",") + "]")
		default:
			panic("wpdb: memoKey: unsupported argument")
		}
	}
	return b.String()
}

// PostByID is DB.PostByID, once per change.
func (s *Store) PostByID(ctx context.Context, id int64) (*calendard.Post, error) {
	return memo(s, memoKey("PostByID", id), func() (*calendard.Post, error) { return s.DB.PostByID(ctx, id) })
}

// PostsByName is DB.PostsByName, once per change.
func (s *Store) PostsByName(ctx context.Context, name string, postTypes ...string) ([]*calendard.Post, error) {
	posts, err := memo(s, memoKey("PostsByName", name, postTypes), func() ([]*calendard.Post, error) {
		return s.DB.PostsByName(ctx, name, postTypes...)
	})
	return slices.Clone(posts), err
}

type linkedPage struct {
	ids   []int64
	total int
}

// FindLinked is DB.FindLinked, once per change (strict reads excepted).
func (s *Store) FindLinked(ctx context.Context, f calendard.LinkedFilter) ([]int64, int, error) {
	if f.ReadableBy != nil {
		return s.DB.FindLinked(ctx, f)
	}
	p, err := memo(s, memoKey("FindLinked", f.PostType, f.Statuses, f.In, f.NotIn, f.ModifiedAfter, f.ModifiedBefore, f.Offset, f.Limit), func() (linkedPage, error) {
		ids, total, err := s.DB.FindLinked(ctx, f)
		return linkedPage{ids, total}, err
	})
	return slices.Clone(p.ids), p.total, err
}

// LinkedPosts is DB.LinkedPosts, once per change.
func (s *Store) LinkedPosts(ctx context.Context, ids []int64) ([]*calendard.LinkedPost, error) {
	posts, err := memo(s, memoKey("LinkedPosts", ids), func() ([]*calendard.LinkedPost, error) { return s.DB.LinkedPosts(ctx, ids) })
	return slices.Clone(posts), err
}

// SearchLinked is DB.SearchLinked, once per change.
func (s *Store) SearchLinked(ctx context.Context, postType, search string) ([]int64, error) {
	ids, err := memo(s, memoKey("SearchLinked", postType, search), func() ([]int64, error) { return s.DB.SearchLinked(ctx, postType, search) })
	return slices.Clone(ids), err
}

// LinkedOfEvents is DB.LinkedOfEvents, once per change.
func (s *Store) LinkedOfEvents(ctx context.Context, postType string, eventIDs []int64) ([]int64, error) {
	ids, err := memo(s, memoKey("LinkedOfEvents", postType, eventIDs), func() ([]int64, error) {
		return s.DB.LinkedOfEvents(ctx, postType, eventIDs)
	})
	return slices.Clone(ids), err
}

// LinkedWithEvents is DB.LinkedWithEvents, once per change.
func (s *Store) LinkedWithEvents(ctx context.Context, postType string) ([]int64, error) {
	ids, err := memo(s, memoKey("LinkedWithEvents", postType), func() ([]int64, error) { return s.DB.LinkedWithEvents(ctx, postType) })
	return slices.Clone(ids), err
}

// UpcomingEventIDs is DB.UpcomingEventIDs answered by the event index when it can.
func (s *Store) UpcomingEventIDs(ctx context.Context, site *calendard.Site, statuses []string, from string, limit int) ([]int64, error) {
	if s.index != nil {
		f := calendard.EventFilter{Statuses: statuses, StartOnOrAfter: &from, Limit: limit}
		if ids, _, ok := s.index.FindEvents(site, &f); ok {
			return ids, nil
		}
	}
	return s.DB.UpcomingEventIDs(ctx, site, statuses, from, limit)
}

// TermIDs is DB.TermIDs, once per change.
func (s *Store) TermIDs(ctx context.Context, q calendard.TermQuery) ([]int64, error) {
	ids, err := memo(s, termQueryKey("TermIDs", q), func() ([]int64, error) { return s.DB.TermIDs(ctx, q) })
	return slices.Clone(ids), err
}

// CountTerms is DB.CountTerms, once per change.
func (s *Store) CountTerms(ctx context.Context, q calendard.TermQuery) (int, error) {
	return memo(s, termQueryKey("CountTerms", q), func() (int, error) { return s.DB.CountTerms(ctx, q) })
}

func termQueryKey(method string, q calendard.TermQuery) string {
	return memoKey(method, q.Taxonomy, q.ObjectIDs, q.Include, q.Exclude, q.Slugs, q.Parent, q.NonEmpty, q.Search,
		q.OrderBy, q.OrderIDs, q.OrderSlugs, q.Desc, q.Limit, q.Offset)
}
