package calendard

import "context"

// CorePostQuery is the WP_Query a wp/v2 post collection request runs (WP_REST_Posts_Controller::
// get_items after prepare_items_query), for one of the calendar's post types.
type CorePostQuery struct {
	PostType string
	// Statuses are the post_status values asked for, in the order WordPress registers them; nil
	// is "any": every status but the ones excluded from search (trash, auto-draft).
	Statuses []string
	// Parent is post_parent (revisions of a post); nil: any.
	Parent *int64
	// ParentIn (post_parent__in) and ParentNotIn (post_parent__not_in): attachments' parent filters.
	ParentIn, ParentNotIn []int64
	// Include (post__in) and Exclude (post__not_in); nil or empty: no condition.
	Include, Exclude []int64
	// Authors (author__in) and AuthorsExclude (author__not_in).
	Authors, AuthorsExclude []int64
	// Slugs is post_name__in (slugs as stored: sanitize_title'd).
	Slugs []string
	// Search are the terms of "s" (ParseSearch); SearchColumns restricts the columns searched
	// (post_title, post_excerpt, post_content); SearchAnonymous adds post_password = ''.
	Search          []SearchTerm
	SearchColumns   []string
	SearchAnonymous bool
	// SearchExact (search_semantics=exact) matches whole column values, not substrings.
	SearchExact bool
	// SearchFilename also matches each term against _wp_attached_file (WP_Query's
	// allow_query_attachment_by_filename, which the attachments controller turns on).
	SearchFilename bool
	// Date bounds, exclusive, as site-local DB datetimes (WP_Date_Query with inclusive false).
	After, Before, ModifiedAfter, ModifiedBefore *string
	// Tax is the tax_query; TaxRelation "AND" (default) or "OR".
	Tax         []CoreTaxClause
	TaxRelation string
	// OrderBy is the WP_Query orderby: date, ID, title, post_name, modified, author, parent,
	// post__in, post_name__in, relevance, or "date ID" (revisions); Desc the order.
	OrderBy string
	Desc    bool
	// Offset and Limit of the page (posts_per_page).
	Offset, Limit int
	// EndsFrom, for events, is the plugin's filter on every front-end event query
	// (Tribe__Events__Query::filter_and_order_by_date): events whose end (_EventEndDate, the
	// event's local time) is at or after this site-local moment, ordered by the requested order,
	// then start date ascending, then publication date ascending. nil: no such filter (venues,
	// organizers).
	EndsFrom *string
}

// CoreTaxClause is one clause of a tax_query on term IDs.
type CoreTaxClause struct {
	Taxonomy        string
	Terms           []int64
	IncludeChildren bool
	Operator        string // IN, AND, NOT IN
}

// CorePostLister runs wp/v2 collection queries and loads their posts.
type CorePostLister interface {
	// CorePostIDs returns one page of post IDs in WP_Query's order and found_posts.
	CorePostIDs(ctx context.Context, site *Site, q CorePostQuery) (ids []int64, total int, err error)
	// CorePosts loads posts as CorePost does, in the order given; missing IDs are skipped.
	CorePosts(ctx context.Context, ids []int64) ([]*CorePost, error)
}

// CoreUser is the public profile the wp/v2 users controller shows.
type CoreUser struct {
	ID                                       int64
	DisplayName, URL, Nicename, Email, About string
	// Posts counts the user's published and private posts per post type (what count_user_posts
	// counts over the types shown in REST, private ones only for who may read them).
	Posts map[string]PostCounts
}

// CoreUserEdit is what the users controller adds in the edit context.
type CoreUserEdit struct {
	Login, FirstName, LastName, Nickname, Locale, Registered string
	// Roles are the keys of the capabilities usermeta that name a role; AllCaps is WP_User's
	// allcaps (each role's capabilities in role order, then the user's own entries) and Caps the
	// capabilities usermeta itself, both in PHP's order, values as stored.
	Roles         []string
	AllCaps, Caps []KV
	// Preferences is the serialized persisted_preferences usermeta ("" when absent).
	Preferences string
}

// PostCounts are a user's posts of one type by status.
type PostCounts struct{ Publish, Private int }

// CoreUserQuery is the WP_User_Query of GET /wp/v2/users.
type CoreUserQuery struct {
	Include, Exclude []int64
	Slugs            []string // user_nicename IN
	Roles            []string // role__in: the capabilities usermeta names one of them
	// Search matches SearchColumns: ID exactly, the others as a substring.
	Search        string
	SearchColumns []string
	// PublishedIn, when set, keeps users who authored a published post of one of these types.
	PublishedIn []string
	// AuthorsOnly is the deprecated who=authors: a user_level other than 0.
	AuthorsOnly bool
	// OrderBy is ID, display_name, user_registered, user_nicename, user_email, user_url, include
	// (FIELD of Include) or nicename__in (FIELD of Slugs).
	OrderBy       string
	Desc          bool
	Offset, Limit int
}

// CoreUserLister runs wp/v2 user collection queries.
type CoreUserLister interface {
	// CoreUserIDs returns one page of user IDs in the query's order and the total.
	CoreUserIDs(ctx context.Context, q CoreUserQuery) (ids []int64, total int, err error)
	// CoreUsers loads the profiles of the users, in the order given (PublishedPosts is not counted).
	CoreUsers(ctx context.Context, ids []int64) ([]*CoreUser, error)
	// CoreUserEdit loads a user's edit-context fields, or nil when there is no such user.
	CoreUserEdit(ctx context.Context, id int64) (*CoreUserEdit, error)
}

// CoreUserReader loads users for the wp/v2 routes.
type CoreUserReader interface {
	// CoreUser returns the user, or nil when there is none.
	CoreUser(ctx context.Context, id int64) (*CoreUser, error)
}
