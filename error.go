// Package calendard holds the domain of the calendar service: the WordPress posts, terms, users and
// options that The Events Calendar keeps, the rules the plugin applies to them, and the interfaces the
// storage and HTTP packages meet. It imports nothing but the standard library and small internal helpers.
package calendard

import (
	"errors"
	"fmt"
)

// Error is a WordPress-shaped error: it renders as {"code","message","data":{"status",...}}.
// Domain code returns it for every failure a client can cause; anything else is an internal error.
type Error struct {
	Code    string
	Message string
	Status  int
	// Data holds extra keys of the "data" object after "status" (e.g. "params", "details"), in order.
	Data []KV
	// NoData marks errors WordPress sends without a data object (e.g. rest_callback_invalid).
	NoData bool
	// RawData, when HasRawData is set, is rendered as "data" instead of the status object: WordPress
	// sends the data of a WP_Error that carries no status as it is (null for duplicate_term_slug, a
	// string for wpdb's last error).
	RawData    any
	HasRawData bool
	// Extra holds top-level keys after "data", in order (e.g. "additional_data" when data was added
	// to the WP_Error more than once).
	Extra []KV
}

// KV is one ordered key/value pair of a JSON object.
type KV struct {
	Key   string
	Value any
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d): %s", e.Code, e.Status, e.Message) }

// Messages of the plugin (TEC's REST V1 message catalogue, default English texts).
const (
	MsgEventNotAccessible       = "The requested event is not accessible"
	MsgEventPasswordProtected   = "The requested event is not accessible without a password"
	MsgEventArchivePageNotFound = "The requested event archive page does not exist"
	MsgEventNoLongerAvailable   = "This event is no longer available"
	MsgInvalidEventID           = "The specified ID is not a valid event."
	MsgEventNotFoundFmt         = "Event with ID %d does not exist."
	MsgForbidden                = "Sorry, you are not allowed to do that."
	MsgNoRoute                  = "No route was found matching the URL and request method."
)

// ErrUnavailable marks failures of the storage itself (connection lost, server gone): the request
// is answered 503 and nothing it wrote is kept.
var ErrUnavailable = errors.New("storage unavailable")

// ErrCommitUnconfirmed marks a write whose COMMIT was sent but not answered before the request's
// deadline (or before the connection broke): the database may have stored it or not. It comes
// wrapped with ErrUnavailable.
var ErrCommitUnconfirmed = errors.New("commit not confirmed")

// ErrForbidden is WordPress' rest_forbidden: 401 for anonymous callers, 403 for logged-in ones.
func ErrForbidden(loggedIn bool) *Error {
	status := 401
	if loggedIn {
		status = 403
	}
	return &Error{Code: "rest_forbidden", Message: MsgForbidden, Status: status}
}
