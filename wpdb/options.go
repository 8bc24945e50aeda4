package wpdb

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/phpserial"
)

// siteOptions are the wp_options rows the API depends on.
var siteOptions = []string{
	"home", "siteurl", "permalink_structure", "blog_charset", "timezone_string", "gmt_offset",
	"posts_per_page", "tribe_events_calendar_options", "tec_ct1_migration_state", "tec_custom_tables_v1_active",
	"using_application_passwords", "upload_url_path", "upload_path", "tag_base",
	"page_on_front", "page_for_posts", "wp_page_for_privacy_policy", "blogname", "blogdescription",
}

// Options returns the raw values of the named options that exist.
func (db *DB) Options(ctx context.Context, names ...string) (map[string]string, error) {
	rows, err := db.sql.QueryContext(ctx,
		"SELECT option_name, option_value FROM "+db.t("options")+" WHERE option_name IN ("+placeholders(len(names))+")",
		stringArgs(names)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]string, len(names))
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}

// SiteOverrides are configuration values that win over the database.
type SiteOverrides struct {
	HomeURL string // CALENDAR_SITE_URL
	// CustomTablesDisabled is what wp-config.php's TEC_CUSTOM_TABLES_V1_DISABLED constant (or the
	// environment variable of that name, or the tec_events_custom_tables_v1_enabled filter) does
	// to the plugin, none of which calendard can see in the database (CALENDAR_CUSTOM_TABLES=off).
	CustomTablesDisabled bool
}

// LoadSite reads the options that shape API answers in one query.
func (db *DB) LoadSite(ctx context.Context, ov SiteOverrides) (*calendard.Site, error) {
	names := append(append([]string{}, siteOptions...), db.prefix+"user_roles")
	opts, err := db.Options(ctx, names...)
	if err != nil {
		return nil, err
	}
	return siteFromOptions(opts, db.prefix, ov)
}

func siteFromOptions(opts map[string]string, prefix string, ov SiteOverrides) (*calendard.Site, error) {
	s := &calendard.Site{
		Charset:               "UTF-8",
		DefaultCurrencySymbol: "$",
		DefaultCurrencyCode:   "USD",
		MultiDayCutoff:        "00:00",
		EventSlug:             "event",
		EventsSlug:            "events",
		VenueSlug:             "venue",
		OrganizerSlug:         "organizer",
		TagBase:               "tag",
		PrettyPermalinks:      opts["permalink_structure"] != "",
		UsingAppPasswords:     calendard.TruthyMeta(opts["using_application_passwords"]),
		Roles:                 map[string]calendard.Role{},
	}
	home := strings.TrimRight(opts["home"], "/")
	siteURL := strings.TrimRight(opts["siteurl"], "/")
	if siteURL == "" {
		siteURL = home
	}
	s.StoredHomeURL = home
	if ov.HomeURL != "" {
		over := strings.TrimRight(ov.HomeURL, "/")
		if strings.HasPrefix(siteURL, home) {
			siteURL = over + strings.TrimPrefix(siteURL, home)
		} else {
			siteURL = over
		}
		home = over
	}
	s.HomeURL, s.SiteURL = home, siteURL
	s.UploadsURL, s.UploadsDir = uploadsURL(siteURL, opts["upload_path"], opts["upload_url_path"])
	if c := opts["blog_charset"]; c != "" {
		s.Charset = c
	}
	if b := strings.Trim(opts["tag_base"], "/"); b != "" {
		s.TagBase = b
	}

	s.Name, s.Description, s.TimezoneName = opts["blogname"], opts["blogdescription"], opts["timezone_string"]
	s.GMTOffset = opts["gmt_offset"]
	s.TimezoneString = calendard.SiteZoneString(opts["timezone_string"], opts["gmt_offset"])
	loc, err := calendard.LoadZone(s.TimezoneString)
	if err != nil {
		return nil, fmt.Errorf("site timezone %q: %w", s.TimezoneString, err)
	}
	s.Location = loc

	s.PageOnFront, _ = strconv.ParseInt(opts["page_on_front"], 10, 64)
	s.PageForPosts, _ = strconv.ParseInt(opts["page_for_posts"], 10, 64)
	s.PrivacyPage, _ = strconv.ParseInt(opts["wp_page_for_privacy_policy"], 10, 64)

	tec, _ := phpserial.Unmarshal(opts["tribe_events_calendar_options"])
	tecOpts, _ := tec.(*phpserial.Array)
	applyTECOptions(s, tecOpts, opts["posts_per_page"])
	s.CategoryBase = s.EventsSlug + "/category"

	_, hasActive := opts["tec_custom_tables_v1_active"]
	s.UseCustomTables = customTablesInUse(ov.CustomTablesDisabled, opts["tec_custom_tables_v1_active"], hasActive,
		opts["tec_ct1_migration_state"])

	if r, _ := phpserial.Unmarshal(opts[prefix+"user_roles"]); r != nil {
		if roles, ok := r.(*phpserial.Array); ok {
			for _, e := range roles.Entries() {
				def, ok := e.Value.(*phpserial.Array)
				if !ok {
					continue
				}
				role := calendard.Role{Capabilities: map[string]bool{}}
				if n, ok := def.Get("name"); ok {
					role.Name, _ = n.(string)
				}
				if caps, ok := def.Get("capabilities"); ok {
					if ca, ok := caps.(*phpserial.Array); ok {
						for _, c := range ca.Entries() {
							role.Capabilities[fmt.Sprint(c.Key)] = phpserial.ToBool(c.Value)
						}
					}
				}
				s.Roles[fmt.Sprint(e.Key)] = role
			}
		}
	}
	return s, nil
}

// customTablesInUse is the plugin's rule for reading and writing its custom tables (tec_events,
// tec_occurrences), TEC\Events\Custom_Tables\V1\Provider::register:
//
//   - Provider::is_active(): false when TEC_CUSTOM_TABLES_V1_DISABLED is defined truthy or set in the
//     environment (disabled here), else (bool) get_option('tec_custom_tables_v1_active', true),
//     which the tec_events_custom_tables_v1_enabled filter may change. Inactive: nothing of CT1 is
//     registered, so every query and save works on postmeta alone.
//   - Active, the Full_Activation_Provider (the WP_Query, Updates and Repository providers that read
//     and write the tables) registers only when Migration\State::is_migrated(): the phase of the
//     tec_ct1_migration_state option is "migration-not-required" or "migration-complete" (in_array,
//     loose: a phase of true matches too). Any other phase (none stored, preview-*, migration-prompt,
//     migration-in-progress, cancel-*, revert-*, migration-failed-*) leaves the site on postmeta.
//
// A site with no phase stored and no events is set to "migration-not-required" by the plugin's own
// Activation::init on its next request; until then both modes answer the same (there is nothing to
// list), and an event calendard creates meanwhile makes the plugin keep the site on postmeta (the
// site now has events to migrate), which is what calendard wrote. So no phase is postmeta here.
func customTablesInUse(disabled bool, activeRaw string, hasActive bool, stateRaw string) bool {
	if disabled {
		return false
	}
	if hasActive {
		// get_option unserializes the stored value; (bool) of it is PHP's truthiness.
		v, err := phpserial.MaybeUnserialize(activeRaw)
		if err != nil {
			v = false // a broken serialization unserializes to false
		}
		if !phpserial.ToBool(v) {
			return false
		}
	}
	st, err := phpserial.MaybeUnserialize(stateRaw)
	if err != nil {
		return false
	}
	a, ok := st.(*phpserial.Array)
	if !ok {
		return false // (array) of a scalar has no "phase" key
	}
	phase, _ := a.Get("phase")
	switch p := phase.(type) {
	case string:
		return p == "migration-not-required" || p == "migration-complete"
	case bool:
		return p // true == "non-empty string" in PHP's loose comparison
	}
	// null, and numbers (PHP 8 compares them with a non-numeric string as strings: never equal).
	return false
}

// applyTECOptions reads the TEC options array (tribe_events_calendar_options).
func applyTECOptions(s *calendard.Site, tec *phpserial.Array, wpPerPage string) {
	str := func(key string) (string, bool) {
		if tec == nil {
			return "", false
		}
		v, ok := tec.Get(key)
		if !ok {
			return "", false
		}
		switch x := v.(type) {
		case string:
			return x, true
		case int64:
			return strconv.FormatInt(x, 10), true
		case bool:
			if x {
				return "1", true
			}
			return "", true
		case nil:
			return "", true
		}
		return fmt.Sprint(v), true
	}

	// Default page size: the TEC key wins whenever it exists (even empty), else the WP option.
	raw, ok := str("posts_per_page")
	if !ok {
		raw = wpPerPage
	}
	s.PerPageRaw = raw
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	switch {
	case err == nil && n < 0:
		s.PerPageInvalid = true
		s.PerPage = 20
	case err != nil || n == 0:
		s.PerPage = 20
	default:
		s.PerPage = n
	}
	if s.PerPage > 50 {
		s.PerPage = 50
	}

	if v, ok := str("defaultCurrencySymbol"); ok && v != "" {
		s.DefaultCurrencySymbol = v
	}
	if v, ok := str("defaultCurrencyCode"); ok && v != "" {
		s.DefaultCurrencyCode = v
	}
	if v, ok := str("reverseCurrencyPosition"); ok {
		s.ReverseCurrencyPosition = calendard.TruthyMeta(v)
	}
	if v, ok := str("multiDayCutoff"); ok && v != "" {
		s.MultiDayCutoff = v
	}
	if v, ok := str("tribe_events_timezone_mode"); ok {
		s.TimezoneModeSite = v == "site"
	}
	if v, ok := str("rest-v1-disabled"); ok {
		s.RESTDisabled = calendard.TruthyMeta(v)
	}
	if v, ok := str("singleEventSlug"); ok && v != "" {
		s.EventSlug = v
	}
	if v, ok := str("eventsSlug"); ok && v != "" {
		s.EventsSlug = v
	}
	if tec != nil {
		if cf, ok := tec.Get("custom-fields"); ok {
			if list, ok := cf.(*phpserial.Array); ok {
				for _, e := range list.Entries() {
					f, ok := e.Value.(*phpserial.Array)
					if !ok {
						continue
					}
					name, _ := f.Get("name")
					label, _ := f.Get("label")
					ns, _ := name.(string)
					ls, _ := label.(string)
					if ns != "" {
						s.CustomFields = append(s.CustomFields, calendard.CustomField{Name: ns, Label: ls})
					}
				}
			}
		}
	}
}

// uploadsURL is _wp_upload_dir's baseurl and basedir for a single site (no UPLOADS constant, which
// only wp-config.php could set): upload_url_path when truthy (as stored: "0" is PHP-false); else
// WP_CONTENT_URL/uploads (WP_CONTENT_URL is siteurl/wp-content) for an empty or default upload_path
// and for an absolute one (path_join then gives the path itself, so "$upload_path === $dir"), and
// trailingslashit(siteurl)/upload_path for a relative one. dir is basedir when it is known without
// the server's ABSPATH: the absolute upload_path; "" otherwise.
func uploadsURL(siteURL, uploadPath, uploadURLPath string) (url, dir string) {
	p := strings.Trim(uploadPath, " \t\n\r\x00\x0B")
	if p != "" && p != "wp-content/uploads" && pathIsAbsolute(p) {
		dir = p
	}
	if uploadURLPath != "" && uploadURLPath != "0" {
		return uploadURLPath, dir
	}
	if p == "" || p == "wp-content/uploads" || dir != "" {
		return siteURL + "/wp-content/uploads", dir
	}
	return siteURL + "/" + p, dir
}

// pathIsAbsolute is path_is_absolute without its file-system checks (a stream wrapper or
// realpath() of an existing path): not starting with ".", then a Windows drive ("C:\\"), or a
// leading slash or backslash.
func pathIsAbsolute(p string) bool {
	if p == "" || p[0] == '.' {
		return false
	}
	if len(p) >= 3 && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') && p[1] == ':' && p[2] == '\\' {
		return true
	}
	return p[0] == '/' || p[0] == '\\'
}
