package calendard

import "context"

// LinkedPost is a venue or organizer post with its featured image.
type LinkedPost struct {
	*Post
	Image *Attachment
}

// LinkedFilter selects venues or organizers the way tribe_get_venues/tribe_get_organizers do.
type LinkedFilter struct {
	PostType string
	Statuses []string // nil: every status but trash and auto-draft ("any")
	In       []int64  // nil: no restriction; empty: nothing
	NotIn    []int64
	// ModifiedAfter and ModifiedBefore bound post_modified (local, exclusive), as EventFilter's.
	ModifiedAfter, ModifiedBefore *string
	// ReadableBy, when set (strict reads), keeps only the posts it allows: see ReadRule.
	ReadableBy *ReadRule
	Offset     int
	Limit      int
}

// LinkedService reads venues and organizers.
type LinkedService interface {
	// FindLinked returns the IDs of one page (newest publication date first, ties as the database
	// orders them for WP_Query's SQL) and the number of all matches.
	FindLinked(ctx context.Context, f LinkedFilter) ([]int64, int, error)
	// LinkedPosts loads posts with meta and featured images, in the given order.
	LinkedPosts(ctx context.Context, ids []int64) ([]*LinkedPost, error)
	// SearchLinked is Tribe__Events__Linked_Posts::find_like: posts whose title, content, excerpt or
	// one of the type's search fields contains every fragment of search.
	SearchLinked(ctx context.Context, postType, search string) ([]int64, error)
	// LinkedOfEvents returns the venue or organizer IDs the events point to: event by event in the
	// given order, each event's in stored order.
	LinkedOfEvents(ctx context.Context, postType string, eventIDs []int64) ([]int64, error)
	// LinkedWithEvents returns the IDs linked from an event whose status is not draft or pending.
	LinkedWithEvents(ctx context.Context, postType string) ([]int64, error)
	// UpcomingEventIDs returns the first limit events (by start) starting at or after from, not hidden,
	// with the given statuses (nil: any).
	UpcomingEventIDs(ctx context.Context, site *Site, statuses []string, from string, limit int) ([]int64, error)
}

// LinkedMetaKey is the event meta key that points to a venue or organizer.
func LinkedMetaKey(postType string) string {
	if postType == PostTypeVenue {
		return "_EventVenueID"
	}
	return "_EventOrganizerID"
}

// LinkedSearchFields are the custom fields find_like searches besides title, content and excerpt.
func LinkedSearchFields(postType string) []string {
	if postType == PostTypeVenue {
		return []string{"_VenueAddress", "_VenueCity", "_VenueProvince", "_VenueState", "_VenueStateProvince", "_VenueZip", "_VenuePhone"}
	}
	return []string{"_OrganizerPhone", "_OrganizerEmail", "_OrganizerWebsite"}
}
