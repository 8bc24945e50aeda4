package ical

import (
	"context"
	"net/url"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/php"
)

// This file holds what WordPress decides about a front-end page before the plugin's export runs
// (WP::main, then template_redirect): the main query's first post (the global post), the X-Pingback
// header of handle_404 and redirect_canonical's guess for a single that was not found.

// foundByMainQuery is WP_Query's visibility of a singular post: published, private for users who
// may read it, a protected status (draft, pending, future) for users who may edit it.
func foundByMainQuery(user *calendard.User, p *calendard.Post) bool {
	ref := &calendard.PostRef{ID: p.ID, Type: p.Type, Status: p.Status, Author: p.Author}
	switch p.Status {
	case "publish":
		return true
	case "private":
		return user.CanReadPost(ref)
	case "draft", "pending", "future":
		return user.LoggedIn() && user.CanEditPost(ref)
	}
	return false
}

// archiveFirst is the first post of the calendar archive's main query: the plugin's views
// suppress its date filters (tribe_suppress_query_filters), so WordPress' default order holds,
// post_date DESC; ties come in ID order (MariaDB sorts the full rows it reads in primary-key
// order: the recorded archive's global post is the lowest ID of its newest second). It reads the
// tail of the post-date order in growing windows until the newest second is whole.
func (h *Handler) archiveFirst(ctx context.Context, site *calendard.Site, f calendard.EventFilter) (*calendard.Event, error) {
	g := calendard.EventFilter{Statuses: f.Statuses, CategoryIDs: f.CategoryIDs, TagIDs: f.TagIDs, OrderByPostDate: true, Limit: 1}
	_, total, err := h.deps.Events.FindEvents(ctx, site, g)
	if err != nil || total == 0 {
		return nil, err
	}
	for w := 16; ; w *= 4 {
		g.Offset, g.Limit = max(total-w, 0), w
		events, _, err := h.deps.Events.FindEvents(ctx, site, g)
		if err != nil || len(events) == 0 {
			return nil, err
		}
		newest := events[len(events)-1].Date
		i := len(events) - 1
		for i > 0 && events[i-1].Date == newest {
			i--
		}
		if i > 0 || g.Offset == 0 {
			return events[i], nil
		}
	}
}

// pageGlobal is the page's current global post (what an unknown event_ids entry resolves to): the
// single event the page shows, or the first post of a calendar archive's main query; nil for the
// site's other pages (their own main queries are not read here) and where WordPress found nothing.
func (h *Handler) pageGlobal(ctx context.Context, site *calendard.Site, user *calendard.User, pg page, statuses []string) (*calendard.Event, error) {
	switch {
	case pg.kind == "single":
		ev, err := h.single(ctx, pg.slug)
		if err != nil || ev == nil || !foundByMainQuery(user, ev.Post) {
			return nil, err
		}
		return ev, nil
	case pg.kind == "home" || pg.postID != 0:
		return nil, nil
	}
	f := calendard.EventFilter{Statuses: statuses}
	if pg.taxonomy != "" {
		ids, ok, err := h.termIDs(ctx, pg.taxonomy, pg.term)
		if err != nil || !ok {
			return nil, err
		}
		if pg.taxonomy == calendard.TaxonomyCategory {
			f.CategoryIDs = ids
		} else {
			f.TagIDs = ids
		}
	}
	return h.archiveFirst(ctx, site, f)
}

// guessRedirect is redirect_canonical on a single event WordPress did not find:
// redirect_guess_404_permalink looks for a published event whose slug starts with the one asked
// for and redirects there, keeping the request's query but for the query variables the guess
// replaces. ok false: no such event.
func (h *Handler) guessRedirect(ctx context.Context, site *calendard.Site, pr *request, slug string) (string, bool, error) {
	if slug == "" {
		return "", false, nil
	}
	p, err := h.deps.Posts.PostByNamePrefix(ctx, slug, []string{calendard.PostTypeEvent}, []string{"publish"})
	if err != nil || p == nil {
		return "", false, err
	}
	loc := site.Permalink(p, false)
	target, _ := url.Parse(loc)
	own := url.Values{}
	if target != nil {
		own = target.Query()
	}
	// _remove_qs_args_if_not_in_url: the query variables that named the post asked for go; the
	// permalink's own arguments (plain permalinks) name the post found.
	dropped := map[string]bool{"page": true, "feed": true, "p": true, "page_id": true, "attachment_id": true,
		"pagename": true, "name": true, "post_type": true, calendard.PostTypeEvent: true}
	if rest := queryTail(pr.order, func(name string) bool { return !dropped[name] && !own.Has(name) }); rest != "" {
		sep := "?"
		if strings.Contains(loc, "?") {
			sep = "&"
		}
		loc += sep + rest
	}
	return loc, true, nil
}

// queryTail is the query redirect_canonical puts on its target from the request's pairs that keep
// names: parsed as parse_str does (a repeated name keeps its first place and its last value), each
// name and value raw-URL-encoded (a space is %20), and a name with an empty value left bare
// (add_query_arg drops its "=").
func queryTail(pairs [][2]string, keep func(name string) bool) string {
	var names []string
	last := map[string]string{}
	for _, kv := range pairs {
		if !keep(kv[0]) {
			continue
		}
		if _, seen := last[kv[0]]; !seen {
			names = append(names, kv[0])
		}
		last[kv[0]] = kv[1]
	}
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = php.RawURLEncode(name)
		if v := last[name]; v != "" {
			parts[i] += "=" + php.RawURLEncode(v)
		}
	}
	return strings.Join(parts, "&")
}

// pingbackOpen is handle_404's X-Pingback condition: the main query is singular, found its post
// and the post's pings are open (pings_open). It reads the site's other pages as WordPress'
// rewrite rules do: venue and organizer permalinks, pages by their path, and posts by name under
// the /%postname%/ structure.
func (h *Handler) pingbackOpen(ctx context.Context, site *calendard.Site, user *calendard.User, pr *request, pg page) (bool, error) {
	var p *calendard.Post
	var err error
	switch {
	case pg.kind == "single":
		var ev *calendard.Event
		if ev, err = h.single(ctx, pg.slug); ev != nil {
			p = ev.Post
		}
	case pg.kind == "home" && pg.postID == 0 && len(pr.segs) > 0:
		p, err = h.sitePage(ctx, site, pr.segs)
	}
	if err != nil || p == nil {
		return false, err
	}
	return p.PingStatus == "open" && foundByMainQuery(user, p), nil
}

// sitePage is the post a path of the site's other pages names, nil when none.
func (h *Handler) sitePage(ctx context.Context, site *calendard.Site, segs []string) (*calendard.Post, error) {
	if len(segs) == 2 && (segs[0] == site.VenueSlug || segs[0] == site.OrganizerSlug) {
		typ := calendard.PostTypeVenue
		if segs[0] == site.OrganizerSlug {
			typ = calendard.PostTypeOrganizer
		}
		return h.firstNamed(ctx, segs[1], typ)
	}
	if p, err := h.pageByPath(ctx, segs); p != nil || err != nil {
		return p, err
	}
	if len(segs) != 1 || h.deps.Options == nil {
		return nil, nil
	}
	opts, err := h.deps.Options.Options(ctx, "permalink_structure")
	if err != nil || strings.Trim(opts["permalink_structure"], "/") != "%postname%" {
		return nil, err
	}
	return h.firstNamed(ctx, segs[0], "post")
}

func (h *Handler) firstNamed(ctx context.Context, name, postType string) (*calendard.Post, error) {
	posts, err := h.deps.Posts.PostsByName(ctx, name, postType)
	if err != nil || len(posts) == 0 {
		return nil, err
	}
	return posts[0], nil
}

// pageByPath is get_page_by_path: the page whose slug is the path's last segment and whose
// ancestors' slugs are the segments before it.
func (h *Handler) pageByPath(ctx context.Context, segs []string) (*calendard.Post, error) {
	candidates, err := h.deps.Posts.PostsByName(ctx, segs[len(segs)-1], "page")
	if err != nil {
		return nil, err
	}
next:
	for _, p := range candidates {
		if p.Status == "trash" {
			continue
		}
		parent := p.Parent
		for i := len(segs) - 2; i >= 0; i-- {
			if parent == 0 {
				continue next
			}
			anc, err := h.deps.Posts.PostByID(ctx, parent)
			if err != nil {
				return nil, err
			}
			if anc == nil || anc.Type != "page" || !strings.EqualFold(anc.Name, segs[i]) {
				continue next
			}
			parent = anc.Parent
		}
		if parent == 0 {
			return p, nil
		}
	}
	return nil, nil
}
