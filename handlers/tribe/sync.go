package tribe

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
)

// Incremental sync of the v1 lists. Every list answer carries a sync token (SyncTokenHeader); a
// list request with sync_token=<token> answers what changed in that list since the token instead
// of a page: the changed items rendered as the list renders them, the IDs of those deleted or no
// longer visible to the caller, and the next token. A token is for one list and cannot be combined
// with the list's filters (Google Calendar's contract): the sync covers the whole resource.
//
// The arguments are read from the query and left out of the routes' argument schemas, so the
// namespace index and OPTIONS documents stay WordPress's.

// SyncTokenHeader carries the token of every v1 list answer and the next token of a sync answer;
// SyncMoreHeader says a sync answer has more changes to fetch with its next token.
const (
	SyncTokenHeader = handlers.SyncTokenHeader
	SyncMoreHeader  = "X-Calendard-Sync-More"
)

// syncMaxPage is the most journal entries one sync answer reads (each object once, latest wins).
const syncMaxPage = 50

// syncTokenPrefix versions the token's inside.
const syncTokenPrefix = "cs1"

// syncer answers the sync side of a list. A nil journal answers no token and an error for
// sync_token.
type syncer struct {
	journal calendard.SyncJournal
}

// encodeSyncToken is the opaque token: base64url of "cs1.<epoch>.<resource>.<seq>".
func encodeSyncToken(epoch, resource string, seq int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(syncTokenPrefix + "." + epoch + "." + resource + "." + strconv.FormatInt(seq, 10)))
}

func decodeSyncToken(tok string) (epoch, resource string, seq int64, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(tok, "="))
	if err != nil {
		return "", "", 0, false
	}
	parts := strings.Split(string(b), ".")
	if len(parts) != 4 || parts[0] != syncTokenPrefix || parts[1] == "" {
		return "", "", 0, false
	}
	seq, err = strconv.ParseInt(parts[3], 10, 64)
	if err != nil || seq < 0 {
		return "", "", 0, false
	}
	return parts[1], parts[2], seq, true
}

// listToken is the token a list answer carries, read before the list is: the list reflects at
// least every change up to it ("" when the journal is off).
func (s *syncer) listToken(r *handlers.Request, resource string) string {
	if s == nil || s.journal == nil {
		return ""
	}
	epoch, safe, err := s.journal.SyncSafeHead(r.Context(), false)
	if err != nil {
		return ""
	}
	return encodeSyncToken(epoch, resource, safe)
}

// withToken adds a list's token to its answer.
func withToken(resp *handlers.Response, tok string) *handlers.Response {
	if tok == "" || resp == nil {
		return resp
	}
	return resp.Header(SyncTokenHeader, tok)
}

// syncAsked reports whether the request is a sync request.
func syncAsked(r *handlers.Request) bool {
	_, ok := r.Param("sync_token")
	return ok
}

// syncParamError is rest_invalid_param for one parameter.
func syncParamError(name, why string) error {
	return handlers.InvalidParams(phpjson.Obj(name, why),
		phpjson.Obj(name, phpjson.Obj("code", "rest_invalid_param", "message", why, "data", phpjson.Obj("status", 400))))
}

// syncExpired is the 410 of a token the journal no longer follows.
var syncExpired = &calendard.Error{Code: "rest_sync_token_expired", Status: 410,
	Message: "The sync token has expired or belongs to another journal: start over with a full list and the token of its answer."}

// answer is the sync answer of a list: listKey is the list's own key; args are its parameters, none
// of which may be given with a token but per_page (the page of changes, at most 50); render gives
// the list records of the IDs the caller can see.
func (s *syncer) answer(r *handlers.Request, resource, listKey string, args []*handlers.Arg,
	render func(ids []int64) (map[int64]any, error)) (*handlers.Response, error) {
	for _, a := range args {
		if a.Name != "per_page" && r.QueryHas(a.Name) {
			return nil, syncParamError(a.Name, "sync_token cannot be combined with "+a.Name+".")
		}
	}
	for _, n := range []string{"modified_after", "modified_before"} {
		if r.QueryHas(n) {
			return nil, syncParamError(n, "sync_token cannot be combined with "+n+".")
		}
	}
	raw, _ := r.Param("sync_token")
	tok, isStr := raw.(string)
	epoch, tokRes, after, ok := decodeSyncToken(tok)
	if !isStr || !ok {
		return nil, syncParamError("sync_token", "Invalid sync token.")
	}
	if tokRes != resource {
		return nil, syncParamError("sync_token", "The sync token is for the "+tokRes+" list.")
	}
	if s == nil || s.journal == nil {
		return nil, &calendard.Error{Code: "rest_sync_unavailable", Status: 501, Message: "Incremental sync is not available on this server."}
	}
	// Everything this instance answers reflects the journal up to safe (a poll first when it lags).
	curEpoch, safe, err := s.journal.SyncSafeHead(r.Context(), true)
	if errors.Is(err, calendard.ErrSyncOff) {
		return nil, &calendard.Error{Code: "rest_sync_unavailable", Status: 501, Message: "Incremental sync is not available on this server."}
	}
	if errors.Is(err, calendard.ErrSyncStarting) {
		return nil, &calendard.Error{Code: "rest_sync_starting", Status: 503, Message: "Incremental sync is starting; retry in a few seconds."}
	}
	if err != nil {
		return nil, err
	}
	_, head, oldest, err := s.journal.SyncHead(r.Context())
	if err != nil {
		return nil, err
	}
	if epoch != curEpoch || after < oldest {
		return nil, syncExpired
	}
	if after > head {
		return nil, syncParamError("sync_token", "Invalid sync token.")
	}
	limit := syncMaxPage
	if v := r.Value("per_page"); r.QueryHas("per_page") && !php.Empty(v) {
		limit = int(min(int64(syncMaxPage), max(1, php.Int(v))))
	}
	next := max(after, safe)
	var entries []calendard.SyncEntry
	if after < safe {
		if entries, err = s.journal.SyncSinceResource(r.Context(), resource, after, safe, limit+1); err != nil {
			return nil, err
		}
	}
	more := len(entries) > limit
	if more {
		entries = entries[:limit]
		next = entries[limit-1].Seq
	}
	// Each object once, where its latest entry puts it.
	last := map[int64]int{}
	for i, e := range entries {
		last[e.ID] = i
	}
	var ids []int64
	for i, e := range entries {
		if last[e.ID] == i && !e.Deleted {
			ids = append(ids, e.ID)
		}
	}
	records := map[int64]any{}
	if len(ids) > 0 {
		if records, err = render(ids); err != nil {
			return nil, err
		}
	}
	items := []any{}
	deleted := []any{}
	for i, e := range entries {
		if last[e.ID] != i {
			continue
		}
		if rec, ok := records[e.ID]; ok && !e.Deleted {
			items = append(items, rec)
		} else {
			deleted = append(deleted, e.ID)
		}
	}
	nextTok := encodeSyncToken(curEpoch, resource, next)
	body := phpjson.Obj(listKey, items, "deleted", deleted, "next_sync_token", nextTok, "more", more)
	return handlers.Ok(body).Header(SyncTokenHeader, nextTok).Header(SyncMoreHeader, strconv.FormatBool(more)), nil
}

// modifiedBounds reads modified_after and modified_before as WP_REST_Posts_Controller does: an
// RFC 3339 date (rest_parse_date), compared with post_modified in the site's zone, both
// exclusive. A bad date is rest_invalid_param, as core's format check answers it.
func modifiedBounds(r *handlers.Request) (after, before *string, err error) {
	read := func(name string) (*string, error) {
		v, ok := r.Param(name)
		if !ok {
			return nil, nil
		}
		s, isStr := v.(string)
		if !isStr {
			return nil, handlers.InvalidParams(phpjson.Obj(name, name+" is not of type string."),
				phpjson.Obj(name, phpjson.Obj("code", "rest_invalid_type", "message", name+" is not of type string.", "data", phpjson.Obj("param", name))))
		}
		if !handlers.RFC3339Date(s) {
			return nil, handlers.InvalidParams(phpjson.Obj(name, "Invalid date."),
				phpjson.Obj(name, phpjson.Obj("code", "rest_invalid_date", "message", "Invalid date.", "data", nil)))
		}
		d := handlers.LocalMySQLDate(r.Site, s)
		return &d, nil
	}
	if after, err = read("modified_after"); err != nil {
		return nil, nil, err
	}
	before, err = read("modified_before")
	return after, before, err
}

// modifiedURLArgs are the modified bounds a list's rest_url repeats, so that its page links keep them.
func modifiedURLArgs(r *handlers.Request) []calendard.KV {
	var out []calendard.KV
	for _, n := range []string{"modified_after", "modified_before"} {
		if v, ok := r.Param(n); ok {
			if s, isStr := v.(string); isStr {
				out = append(out, calendard.KV{Key: n, Value: s})
			}
		}
	}
	return out
}
