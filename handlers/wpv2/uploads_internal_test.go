package wpv2

import (
	"testing"

	calendard "github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
)

// uploadURL is wp_get_attachment_url for a stored _wp_attached_file: a file under basedir has
// basedir swapped for baseurl, a path holding wp-content/uploads keeps its directory after it (pre-2.7
// uploads), anything else is relative to baseurl. Rules read from wp-includes/post.php.
func TestUploadURLIsWPGetAttachmentURL(t *testing.T) {
	cdn := &calendard.Site{SiteURL: "http://example.test", UploadsURL: "https://cdn.example.com/media"}
	abs := &calendard.Site{SiteURL: "http://example.test", UploadsURL: "http://example.test/wp-content/uploads", UploadsDir: "/srv/media"}
	cases := []struct {
		name string
		site *calendard.Site
		file string
		want string
	}{
		{"a relative file under upload_url_path", cdn, "2026/11/a.jpg", "https://cdn.example.com/media/2026/11/a.jpg"},
		{"an old absolute path under wp-content/uploads keeps its year/month", cdn, "/var/www/wp-content/uploads/2008/05/b.png", "https://cdn.example.com/media/2008/05/b.png"},
		{"a file directly in wp-content/uploads", cdn, "/var/www/wp-content/uploads/c.png", "https://cdn.example.com/media/c.png"},
		{"a file under the known absolute upload_path", abs, "/srv/media/2026/11/d.jpg", "http://example.test/wp-content/uploads/2026/11/d.jpg"},
		{"a relative file on a site with an absolute upload_path", abs, "2026/11/e.jpg", "http://example.test/wp-content/uploads/2026/11/e.jpg"},
		{"no uploads URL known: siteurl's wp-content/uploads", &calendard.Site{SiteURL: "http://example.test"}, "f.jpg", "http://example.test/wp-content/uploads/f.jpg"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &handlers.Request{Site: c.site}
			if got := r.UploadURL(c.file); got != c.want {
				t.Errorf("uploadURL(%q) = %q, want %q", c.file, got, c.want)
			}
		})
	}
	// On an HTTPS request set_url_scheme makes every attachment URL https (the GUID fallback too).
	secure := []struct{ name, in, want string }{
		{"http becomes https", "http://example.test/wp-content/uploads/a.jpg", "https://example.test/wp-content/uploads/a.jpg"},
		{"https stays", "https://cdn.example.com/a.jpg", "https://cdn.example.com/a.jpg"},
		{"any scheme is replaced", "ftp://files.example.com/a.jpg", "https://files.example.com/a.jpg"},
		{"a protocol-relative URL gets https", "//cdn.example.com/a.jpg", "https://cdn.example.com/a.jpg"},
		{"a path has no scheme to replace", "/wp-content/uploads/a.jpg", "/wp-content/uploads/a.jpg"},
	}
	for _, c := range secure {
		t.Run("secure: "+c.name, func(t *testing.T) {
			if got := (&handlers.Request{Secure: true}).SSLFrontEnd(c.in); got != c.want {
				t.Errorf("sslFrontEnd(%q) = %q, want %q", c.in, got, c.want)
			}
			if got := (&handlers.Request{}).SSLFrontEnd(c.in); got != c.in {
				t.Errorf("plain HTTP: %q changed to %q", c.in, got)
			}
		})
	}
	r := &handlers.Request{Site: &calendard.Site{SiteURL: "http://example.test", UploadsURL: "http://cdn.example.com/media"}, Secure: true}
	if got := r.UploadURL("2026/11/a.jpg"); got != "https://cdn.example.com/media/2026/11/a.jpg" {
		t.Errorf("secure uploadURL = %q", got)
	}
	// An attachment without _wp_attached_file falls back to its GUID, https on a secure request.
	guid := &calendard.Post{GUID: "http://example.test/?attachment_id=5"}
	if got := attachmentFileURL(r, guid, ""); got != "https://example.test/?attachment_id=5" {
		t.Errorf("secure media GUID fallback = %q", got)
	}
	if got := attachmentFileURL((&handlers.Request{Site: r.Site}), guid, ""); got != guid.GUID {
		t.Errorf("plain media GUID fallback = %q", got)
	}
}
