package handlers

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
	"github.com/calendard/calendard/internal/phpserial"
)

// SerialToJSON converts a decoded PHP value to its JSON form.
func SerialToJSON(v any) any {
	switch x := v.(type) {
	case *phpserial.Array:
		list := true
		for i, e := range x.Entries() {
			if n, ok := e.Key.(int64); !ok || n != int64(i) {
				list = false
				break
			}
		}
		if list {
			out := make([]any, 0, x.Len())
			for _, e := range x.Entries() {
				out = append(out, SerialToJSON(e.Value))
			}
			return out
		}
		o := phpjson.NewObject()
		for _, e := range x.Entries() {
			o.Set(KeyString(e.Key), SerialToJSON(e.Value))
		}
		return o
	}
	return v
}

// KeyString is a PHP array key as a string.
func KeyString(k any) string {
	s, _ := php.String(k)
	return s
}

// UploadURL is wp_get_attachment_url for a non-empty _wp_attached_file: a path holding
// wp-content/uploads is re-rooted at the uploads URL (its part after that, then its base name),
// anything else is taken as relative to the uploads URL. A path under the uploads directory is
// re-rooted only when that directory is known (Site.UploadsDir): calendard does not know ABSPATH.
func (r *Request) UploadURL(file string) string {
	return r.SSLFrontEnd(r.uploadPathURL(file))
}

// SSLFrontEnd is wp_get_attachment_url's last step: on an HTTPS request (is_ssl(), not the admin),
// set_url_scheme makes the URL https, whatever scheme it had.
func (r *Request) SSLFrontEnd(url string) string {
	if !r.Secure {
		return url
	}
	u := strings.TrimSpace(url)
	if strings.HasPrefix(u, "//") {
		u = "http:" + u
	}
	if m := urlScheme.FindString(u); m != "" {
		return "https://" + u[len(m):]
	}
	return u
}

// urlScheme is set_url_scheme's '#^\w+://#'.
var urlScheme = regexp.MustCompile(`^\w+://`)

// uploadPathURL is wp_get_attachment_url before the scheme step.
func (r *Request) uploadPathURL(file string) string {
	base := r.Site.UploadsURL
	if base == "" {
		base = r.Site.SiteURL + "/wp-content/uploads"
	}
	if dir := r.Site.UploadsDir; dir != "" && strings.HasPrefix(file, dir) {
		// str_replace($uploads['basedir'], $uploads['baseurl'], $file): every occurrence.
		return strings.ReplaceAll(file, dir, base)
	}
	if _, after, found := strings.Cut(file, "wp-content/uploads"); found {
		// _wp_get_attachment_relative_path: the directory part after wp-content/uploads.
		dir := ""
		if i := strings.LastIndex(after, "/"); i >= 0 {
			dir = strings.Trim(after[:i], "/")
		}
		u := base + "/" + dir
		if !strings.HasSuffix(u, "/") {
			u += "/"
		}
		return u + path.Base(file)
	}
	return base + "/" + file
}

// Permalink is get_permalink as seen by the requesting user.
func (r *Request) Permalink(p *calendard.Post) string {
	canRead := p.Status == "private" && r.User.CanReadPost(&calendard.PostRef{ID: p.ID, Type: p.Type, Status: p.Status, Author: p.Author})
	return r.Site.Permalink(p, canRead)
}

// PluginSiteZone is the zone localize_date shows dates in:
// generate_timezone_string_from_utc_offset(wp_timezone_string()), the site's timezone_string, or for
// an offset-only site the region PHP names for the offset (UTC-8 is Los Angeles, with its summer
// time; UTC+6 has none and is UTC), where WordPress itself keeps a fixed offset (Site.Location).
func PluginSiteZone(site *calendard.Site) *time.Location {
	if site.TimezoneName != "" && site.Location != nil {
		return site.Location
	}
	return calendard.BuildTimezoneObject("", false, site)
}

// Itoa formats an int64.
func Itoa(n int64) string { return strconv.FormatInt(n, 10) }
