package tribe

import (
	"fmt"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/wptext"
)

// slugArgs are the parameters of GET /events/by-slug/{slug}.
func (l *lookups) slugEventArgs() []*handlers.Arg {
	return []*handlers.Arg{{Name: "slug", Type: "string", Required: true, In: "path", Description: "the event post name",
		Validate: l.validSlugOf(calendard.PostTypeEvent)}}
}

// validSlugOf is is_event_slug (and its venue/organizer twins): get_page_by_path finds a post of the type.
func (l *lookups) validSlugOf(postType string) func(*handlers.Request, any) error {
	return func(r *handlers.Request, v any) error {
		s, ok := v.(string)
		if !ok || php.Empty(s) {
			return handlers.ErrInvalid
		}
		id, err := l.postBySlugPath(r, s, postType)
		if err != nil {
			return err
		}
		if id == 0 {
			return handlers.ErrInvalid
		}
		return nil
	}
}

// postBySlugPath is get_page_by_path($slug, OBJECT, $type) for a single-segment path of a
// non-hierarchical type: the slug is normalized like sanitize_title_for_query, and a post with a
// parent does not match a one-segment path.
func (l *lookups) postBySlugPath(r *handlers.Request, path, postType string) (int64, error) {
	p := php.RawURLEncode(php.URLDecode(path))
	p = strings.ReplaceAll(strings.ReplaceAll(p, "%2F", "/"), "%20", " ")
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) != 1 {
		return 0, nil
	}
	slug := wptext.SanitizeTitleForQuery(parts[0])
	if slug == "" {
		return 0, nil
	}
	posts, err := l.posts.PostsByName(r.Context(), slug, postType)
	if err != nil {
		return 0, err
	}
	// The name must also match exactly (PHP ==), and a post with a parent does not match a
	// one-segment path.
	for _, p := range posts {
		if p.Name == slug && p.Parent == 0 {
			return p.ID, nil
		}
	}
	return 0, nil
}

// get is GET /events/{id} (Single_Event::get, TEC 6.17.2 decision sequence).
func (h *eventsHandler) get(r *handlers.Request) (*handlers.Response, error) {
	return h.getByID(r, php.Int(r.Value("id")))
}

// getBySlug is GET /events/by-slug/{slug}.
func (h *eventsHandler) getBySlug(r *handlers.Request) (*handlers.Response, error) {
	s, _ := r.Value("slug").(string)
	id, err := h.postBySlugPath(r, s, calendard.PostTypeEvent)
	if err != nil {
		return nil, err
	}
	return h.getByID(r, id)
}

func (h *eventsHandler) getByID(r *handlers.Request, id int64) (*handlers.Response, error) {
	post, err := h.posts.PostByID(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if post == nil {
		return nil, &calendard.Error{Code: "rest-event-not-found", Status: 404, Message: fmt.Sprintf(calendard.MsgEventNotFoundFmt, id)}
	}
	if post.Type != calendard.PostTypeEvent {
		return nil, &calendard.Error{Code: "rest-invalid-event-id", Status: 400, Message: calendard.MsgInvalidEventID}
	}
	if post.Status == "trash" {
		return nil, &calendard.Error{Code: "event-no-longer-available", Status: 403, Message: calendard.MsgEventNoLongerAvailable}
	}
	ref := &calendard.PostRef{ID: post.ID, Type: post.Type, Status: post.Status, Author: post.Author}
	if post.Status != "publish" && !r.User.CanReadPost(ref) {
		return nil, &calendard.Error{Code: "event-not-accessible", Status: 403, Message: calendard.MsgEventNotAccessible}
	}
	e, err := h.events.EventByID(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, &calendard.Error{Code: "rest-event-not-found", Status: 404, Message: fmt.Sprintf(calendard.MsgEventNotFoundFmt, id)}
	}
	if e.HasPassword() && !unlocked(r, e.Post) {
		return nil, &calendard.Error{Code: "event-password-protected", Status: 403, Message: calendard.MsgEventPasswordProtected}
	}
	return handlers.Ok(h.eventRecord(r, e, true)), nil
}
