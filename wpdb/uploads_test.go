package wpdb

import (
	"context"
	"testing"
)

// _wp_upload_dir's baseurl (and the basedir calendard can know) from the site's options, read
// from the real stores: upload_url_path when PHP-truthy; else siteurl (not home) with
// /wp-content/uploads for an empty, default or absolute upload_path, and siteurl/upload_path for a
// relative one. Rules read from wp-includes/functions.php (_wp_upload_dir, path_is_absolute).
func TestUploadsURLFromOptions(t *testing.T) {
	const siteurl = "http://127.0.0.1:8088/wp"
	cases := []struct {
		name                string
		uploadPath, urlPath string
		wantURL, wantDir    string
	}{
		{"no options: siteurl's wp-content/uploads", "", "", siteurl + "/wp-content/uploads", ""},
		{"upload_url_path as stored, even with upload_path set", "files", "https://cdn.example.com/media", "https://cdn.example.com/media", ""},
		{"upload_url_path 0 is PHP-false", "", "0", siteurl + "/wp-content/uploads", ""},
		{"the default upload_path", "wp-content/uploads", "", siteurl + "/wp-content/uploads", ""},
		{"a relative upload_path hangs off siteurl", "files/media", "", siteurl + "/files/media", ""},
		{"upload_path is trimmed", "  files\n", "", siteurl + "/files", ""},
		{"a ./ relative path is not absolute", "./files", "", siteurl + "/./files", ""},
		{"an absolute upload_path: content URL, and the directory is known", "/srv/media", "", siteurl + "/wp-content/uploads", "/srv/media"},
		{"an absolute upload_path with upload_url_path", "/srv/media", "https://cdn.example.com/m", "https://cdn.example.com/m", "/srv/media"},
		{"a Windows drive path is absolute", `C:\uploads`, "", siteurl + "/wp-content/uploads", `C:\uploads`},
	}
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				for _, st := range []struct {
					q    string
					args []any
				}{
					{"DELETE FROM wp_options WHERE option_name IN ('upload_path', 'upload_url_path')", nil},
					{"UPDATE wp_options SET option_value = ? WHERE option_name = 'siteurl'", []any{siteurl}},
					{"INSERT INTO wp_options (option_name, option_value, autoload) VALUES ('upload_path', ?, 'yes'), ('upload_url_path', ?, 'yes')", []any{c.uploadPath, c.urlPath}},
				} {
					if _, err := s.sql.ExecContext(ctx, st.q, st.args...); err != nil {
						t.Fatal(err)
					}
				}
				site, err := s.LoadSite(ctx, SiteOverrides{})
				if err != nil {
					t.Fatal(err)
				}
				if site.UploadsURL != c.wantURL || site.UploadsDir != c.wantDir {
					t.Errorf("uploads URL %q dir %q, want %q %q", site.UploadsURL, site.UploadsDir, c.wantURL, c.wantDir)
				}
				if site.HomeURL != "http://127.0.0.1:8088" {
					t.Errorf("home %q: the fixture's home stays", site.HomeURL)
				}
			})
		}
	})
}
