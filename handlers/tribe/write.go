package tribe

import (
	"strings"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/strtotime"
)

// Helpers shared by the write endpoints (events, venues, organizers).

// validUserID is is_user_id: numeric and an existing user.
func (l *lookups) validUserID(r *handlers.Request, v any) error {
	if !php.IsNumeric(v) {
		return handlers.ErrInvalid
	}
	u, err := l.users.UserByID(r.Context(), php.Int(v))
	if err != nil {
		return err
	}
	if u == nil {
		return handlers.ErrInvalid
	}
	return nil
}

// validPostStatus is is_post_status: a status WordPress has registered.
func validPostStatus(_ *handlers.Request, v any) error {
	if s, ok := v.(string); ok && calendard.IsRegisteredStatus(s) {
		return nil
	}
	return handlers.ErrInvalid
}

// sanitizeURL is FILTER_SANITIZE_URL: characters that cannot appear in a URL are removed.
func sanitizeURL(s string) string {
	const allowed = "$-_.+!*'(),{}|\\^~[]`<>#%\";/?:@&="
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strings.IndexByte(allowed, c) >= 0 {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// validImage is is_image: a numeric ID of an image attachment, or (for users with upload_files)
// the URL of an image already in the media library. calendard does not download remote files (the
// plugin would fetch and import them): a service that fetches arbitrary URLs on request is a
// server-side request forgery risk.
func (l *lookups) validImage(r *handlers.Request, v any) error {
	if !php.IsNumeric(v) && !r.User.Can("upload_files") {
		// The plugin's is_image considers a URL only from users who may upload files: from anyone
		// else any non-numeric value is invalid, even the URL of an image already in the library.
		return handlers.ErrInvalid
	}
	id, err := l.imageID(r, v)
	if err != nil {
		return err
	}
	if id == 0 {
		return handlers.ErrInvalid
	}
	return nil
}

// imageID is tribe_upload_image for the accepted forms: the attachment ID, or 0.
func (l *lookups) imageID(r *handlers.Request, v any) (int64, error) {
	var id int64
	switch {
	case php.IsNumeric(v):
		id = php.Int(v)
	case php.IsString(v) && php.FilterValidateURL(v.(string)):
		var err error
		if id, err = l.posts.AttachmentByURL(r.Context(), v.(string)); err != nil {
			return 0, err
		}
	}
	if id <= 0 {
		return 0, nil
	}
	p, err := l.posts.PostByID(r.Context(), id)
	if err != nil || p == nil {
		return 0, err
	}
	if p.Type != calendard.PostTypeAttach || !strings.HasPrefix(p.MimeType, "image/") {
		return 0, nil
	}
	return id, nil
}

// postDate is Tribe__Date_Utils::reformat($date, 'Y-m-d H:i:s') for a write's "date": parsed in the
// site zone (or the offset it carries), wall clock kept.
func postDate(r *handlers.Request, v any) (string, bool) { return wallClock(v, r.Site.Location, r.Now) }

// postDateGMT is Tribe__Timezones::localize_date('Y-m-d H:i:s', $date_utc, 'UTC') for "date_utc":
// timestamps are instants, strings parsed in UTC (or their own offset), shown in UTC.
func postDateGMT(r *handlers.Request, v any) (string, bool) {
	s, ok := php.String(v)
	if !ok || php.IsArray(v) {
		return "", false
	}
	if ts, isTS := isTimestamp(s); isTS {
		return time.Unix(ts, 0).UTC().Format(calendard.DBDateTime), true
	}
	t, err := strtotime.Parse(s, r.Now, time.UTC)
	if err != nil {
		return "", false
	}
	return t.UTC().Format(calendard.DBDateTime), true
}

// wallClock is Tribe__Date_Utils::reformat($v, 'Y-m-d H:i:s'): timestamps read as UTC, strings parsed
// in loc (or in the offset they carry), and the wall clock kept.
func wallClock(v any, loc *time.Location, now time.Time) (string, bool) {
	s, ok := php.String(v)
	if !ok || php.IsArray(v) {
		return "", false
	}
	if ts, isTS := isTimestamp(s); isTS {
		return time.Unix(ts, 0).UTC().Format(calendard.DBDateTime), true
	}
	t, err := strtotime.Parse(s, now, loc)
	if err != nil {
		return "", false
	}
	return t.Format(calendard.DBDateTime), true
}
