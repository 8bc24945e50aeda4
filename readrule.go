package calendard

import "slices"

// ReadRule is the read_post check single records get, as a filter on lists: the strict reads mode
// (CALENDAR_STRICT_READS). The plugin's lists have no per-post check (anyone with edit_tribe_events
// lists every status of every author), so without strict reads no rule is set.
//
// A post passes when its status is not in Hidden and
//   - its status is in Others (other authors' posts read_post lets the reader read), or
//   - OthersUnregistered is set and its status is not one of RegisteredStatuses, or
//   - Author is not 0 and the post's post_author is Author (the reader's own posts).
type ReadRule struct {
	Author             int64
	Others             []string
	OthersUnregistered bool
	Hidden             []string
}

// Allows applies the rule to one post; SQL and in-memory indexes must agree with it.
func (r *ReadRule) Allows(author int64, status string) bool {
	if slices.Contains(r.Hidden, status) {
		return false
	}
	return slices.Contains(r.Others, status) || (r.OthersUnregistered && !IsRegisteredStatus(status)) ||
		(r.Author != 0 && author == r.Author)
}

// ReadRuleFor is the rule of user u for posts of a type: exactly the posts u.CanReadPost would let a
// single endpoint show, published ones always (singles never check those), minus the statuses
// hidden from everyone (singles refuse trashed events to all).
func ReadRuleFor(u *User, postType string, hidden ...string) *ReadRule {
	r := &ReadRule{Hidden: hidden}
	if u.LoggedIn() && u.Can("read") {
		r.Author = u.ID
	}
	other := &PostRef{Type: postType, Author: -1}
	for _, s := range RegisteredStatuses {
		other.Status = s
		if (s == "publish" || u.CanReadPost(other)) && !slices.Contains(hidden, s) {
			r.Others = append(r.Others, s)
		}
	}
	other.Status = "calendard-unregistered-status"
	r.OthersUnregistered = u.CanReadPost(other)
	return r
}
