package handlers

import (
	"context"
	"time"

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

// Write runs fn in one transaction of w at the request's clock: everything a request writes
// commits together or not at all. A nil w is a read-only store.
func Write(r *Request, w calendard.Writer, fn func(tx calendard.WriteTx) error) error {
	if w == nil {
		return &calendard.Error{Code: "rest_not_implemented", Message: "This store is read-only.", Status: 501}
	}
	return w.Write(r.ctx, func() time.Time { return r.Now }, fn)
}

// Local is a value a route family keeps for the rest of the request (SetLocal), under a key of a
// type of its own.
func (r *Request) Local(key any) (any, bool) {
	v, ok := r.locals[key]
	return v, ok
}

// SetLocal keeps v for the rest of the request under key; a nil v drops it.
func (r *Request) SetLocal(key, v any) {
	if v == nil {
		delete(r.locals, key)
		return
	}
	if r.locals == nil {
		r.locals = map[any]any{}
	}
	r.locals[key] = v
}
