package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Sign is the Standard Webhooks signature of a message: "v1," and the base64 HMAC-SHA256, keyed by
// the endpoint's secret, of "<id>.<unix seconds>.<body>".
func Sign(key []byte, id string, ts time.Time, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// MessageID is the webhook-id of an entry: the journal's epoch and the entry's sequence number,
// the same on every attempt and from every instance, for receivers to deduplicate by.
func MessageID(epoch string, seq int64) string {
	return "msg_" + epoch + "_" + strconv.FormatInt(seq, 10)
}

// Payload is the JSON body of a delivery.
type Payload struct {
	Type      string `json:"type"`      // "event.updated", "venue.deleted", …
	Timestamp string `json:"timestamp"` // when the change was journaled, RFC 3339
	Data      Data   `json:"data"`
}

// Data says what changed.
type Data struct {
	Resource string `json:"resource"` // events, venues, organizers, categories, tags
	ID       int64  `json:"id"`
	Status   string `json:"status,omitempty"` // post_status after the change (posts only)
	Deleted  bool   `json:"deleted"`
	URL      string `json:"url"` // the item's REST URL
	Seq      int64  `json:"seq"` // the journal's sequence number (ordering within the epoch)
}

// singular names a resource in an event type.
var singular = map[string]string{"events": "event", "venues": "venue", "organizers": "organizer", "categories": "category", "tags": "tag"}

// Body renders the payload of an entry.
func Body(e Entry, itemURL string) ([]byte, error) {
	name, ok := singular[e.Resource]
	if !ok {
		return nil, fmt.Errorf("unknown resource %q", e.Resource)
	}
	kind := "updated"
	if e.Deleted {
		kind = "deleted"
	}
	return json.Marshal(Payload{Type: name + "." + kind, Timestamp: e.At.UTC().Format(time.RFC3339),
		Data: Data{Resource: e.Resource, ID: e.ID, Status: e.Status, Deleted: e.Deleted, URL: itemURL, Seq: e.Seq}})
}
