package handlers

import (
	"context"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/phpjson"
)

// What the route families use of a request beyond its exported fields: its context, its raw
// parameter sources, and the lookups every family shares (posts, taxonomies), which the server
// serves from its own services.

// Context is the request's context, bounded by the database deadline.
func (r *Request) Context() context.Context { return r.ctx }

// QueryParams are the query-string parameters as PHP parsed them.
func (r *Request) QueryParams() *phpjson.Object { return r.query }

// JSONBody is the decoded JSON body, and whether the body was JSON.
func (r *Request) JSONBody() (*phpjson.Object, bool) { return r.json, r.isJSON }

// CorePost loads any post by ID (nil when there is none), for parents of attachments.
func (r *Request) CorePost(id int64) *calendard.CorePost {
	reader := r.srv.deps.Posts
	if id <= 0 {
		return nil
	}
	p, err := reader.CorePost(r.ctx, id)
	if err != nil {
		return nil
	}
	return p
}

// posts returns the post lookups.
func (r *Request) Posts() calendard.PostService { return r.srv.deps.Posts }
