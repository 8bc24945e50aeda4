package wpdb

import (
	"context"
	"database/sql"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/calendard/calendard"
)

// What the search index (package search) and the geo filters read. Hand-written SQL, one statement
// per function.

// EventsByIDs loads events with their terms, venues and organizers, in the given order (no cache).
func (db *DB) EventsByIDs(ctx context.Context, ids []int64) ([]*calendard.Event, error) {
	return db.eventsByIDs(ctx, ids)
}

// PostsByIDs loads posts of any type with their meta, keyed by ID.
func (db *DB) PostsByIDs(ctx context.Context, ids []int64) (map[int64]*calendard.Post, error) {
	return db.postsByIDs(ctx, ids)
}

// IndexedPost is a post's ID, type and last modification, as the index sync compares them.
type IndexedPost struct {
	ID          int64
	Type        string
	ModifiedGMT string
}

// indexablePostsSQL lists events, venues and organizers in every status but auto-draft (trashed
// ones too: editors list them).
func (db *DB) indexablePostsSQL(since bool) string {
	q := "SELECT ID, post_type, post_modified_gmt FROM " + db.t("posts") +
		" WHERE post_type IN ('tribe_events', 'tribe_venue', 'tribe_organizer') AND post_status <> 'auto-draft'"
	if since {
		q += " AND post_modified_gmt >= ?"
	}
	return q + " ORDER BY ID"
}

// IndexablePosts lists every event, venue and organizer; with since, only those modified at or
// after it (a post_modified_gmt value).
func (db *DB) IndexablePosts(ctx context.Context, since string) ([]IndexedPost, error) {
	var args []any
	if since != "" {
		args = append(args, since)
	}
	rows, err := db.sql.QueryContext(ctx, db.indexablePostsSQL(since != ""), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []IndexedPost
	for rows.Next() {
		var p IndexedPost
		var mod nullString
		if err := rows.Scan(&p.ID, &p.Type, &mod); err != nil {
			return nil, err
		}
		p.ModifiedGMT = mod.String
		out = append(out, p)
	}
	return out, rows.Err()
}

// EventsLinkedTo returns the events whose _EventVenueID or _EventOrganizerID names one of ids: their
// index documents carry the linked posts' names.
func (db *DB) EventsLinkedTo(ctx context.Context, ids []int64) ([]int64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := db.sql.QueryContext(ctx, "SELECT DISTINCT post_id FROM "+db.t("postmeta")+
		" WHERE meta_key IN ('_EventVenueID', '_EventOrganizerID') AND "+db.castInt("meta_value")+
		" IN ("+placeholders(len(ids))+")", int64Args(ids)...)
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}

// EventsWithTerms returns the events that have one of the given terms (a renamed term changes
// their documents).
func (db *DB) EventsWithTerms(ctx context.Context) ([]int64, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT DISTINCT tr.object_id FROM "+db.t("term_relationships")+" tr JOIN "+
		db.t("posts")+" p ON p.ID = tr.object_id WHERE p.post_type = 'tribe_events'")
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}

// VenuePoint is a venue's coordinates and, for a radius query, its distance from the centre.
type VenuePoint struct {
	ID       int64
	Lat, Lng float64
	KM       float64
}

// ParseCoordinate reads a _VenueLat/_VenueLng value: a finite decimal number within limit.
func ParseCoordinate(s string, limit float64) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < -limit || v > limit {
		return 0, false
	}
	return v, true
}

// venueCoordinatesSQL reads the coordinate meta of venues; a bounding box, when given, prefilters
// in SQL (CAST as DECIMAL works on both stores).
func (db *DB) venueCoordinatesSQL(box bool) string {
	num := func(col string) string {
		if db.dialect == SQLite {
			return "CAST(" + col + " AS REAL)"
		}
		return "CAST(" + col + " AS DECIMAL(12,8))"
	}
	q := "SELECT la.post_id, la.meta_value, lo.meta_value FROM " + db.t("postmeta") + " la JOIN " + db.t("postmeta") +
		" lo ON lo.post_id = la.post_id AND lo.meta_key = '_VenueLng' JOIN " + db.t("posts") +
		" p ON p.ID = la.post_id AND p.post_type = 'tribe_venue' WHERE la.meta_key = '_VenueLat' AND la.meta_value <> '' AND lo.meta_value <> ''"
	if box {
		q += " AND " + num("la.meta_value") + " BETWEEN ? AND ? AND " + num("lo.meta_value") + " BETWEEN ? AND ?"
	}
	return q
}

// VenuesWithCoordinates returns every venue whose _VenueLat and _VenueLng are numbers, by ID.
func (db *DB) VenuesWithCoordinates(ctx context.Context) ([]VenuePoint, error) {
	return db.venuePoints(ctx, db.venueCoordinatesSQL(false))
}

func (db *DB) venuePoints(ctx context.Context, q string, args ...any) ([]VenuePoint, error) {
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	seen := map[int64]bool{}
	var out []VenuePoint
	for rows.Next() {
		var id int64
		var la, lo nullString
		if err := rows.Scan(&id, &la, &lo); err != nil {
			return nil, err
		}
		lat, ok1 := ParseCoordinate(la.String, 90)
		lng, ok2 := ParseCoordinate(lo.String, 180)
		// The first meta row of each key counts, as get_post_meta(…, true) reads it.
		if ok1 && ok2 && !seen[id] {
			seen[id] = true
			out = append(out, VenuePoint{ID: id, Lat: lat, Lng: lng})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// EarthRadiusKM is the mean Earth radius the distances use (Meilisearch's _geoRadius uses the same
// haversine on a sphere of 6,371 km).
const EarthRadiusKM = 6371.0

// HaversineKM is the great-circle distance between two points.
func HaversineKM(lat1, lng1, lat2, lng2 float64) float64 {
	rad := math.Pi / 180
	dLat := (lat2 - lat1) * rad
	dLng := (lng2 - lng1) * rad
	a := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * EarthRadiusKM * math.Asin(math.Min(1, math.Sqrt(a)))
}

// VenuesNear returns the venues within radiusKM of (lat, lng), nearest first (ties by ID): a
// bounding box in SQL, then the exact great-circle distance.
func (db *DB) VenuesNear(ctx context.Context, lat, lng, radiusKM float64) ([]VenuePoint, error) {
	dLat := radiusKM / EarthRadiusKM * 180 / math.Pi
	var pts []VenuePoint
	var err error
	cosLat := math.Cos(lat * math.Pi / 180)
	if lat-dLat <= -90 || lat+dLat >= 90 || cosLat < 1e-6 || radiusKM/(EarthRadiusKM*cosLat) >= math.Pi/2 {
		// A box around a pole or wider than a hemisphere: no useful prefilter.
		pts, err = db.VenuesWithCoordinates(ctx)
	} else {
		dLng := radiusKM / (EarthRadiusKM * cosLat) * 180 / math.Pi
		// Slack for the decimal cast; the exact test follows.
		const eps = 1e-6
		lo, hi := lng-dLng-eps, lng+dLng+eps
		if lo < -180 || hi > 180 {
			// The box crosses the antimeridian: filter latitude only in SQL.
			lo, hi = -180, 180
		}
		pts, err = db.venuePoints(ctx, db.venueCoordinatesSQL(true), lat-dLat-eps, lat+dLat+eps, lo, hi)
	}
	if err != nil {
		return nil, err
	}
	out := pts[:0]
	for _, p := range pts {
		p.KM = HaversineKM(lat, lng, p.Lat, p.Lng)
		if p.KM <= radiusKM {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].KM < out[j].KM })
	return out, nil
}

// SearchPrints are checksums of what the search index's documents are built from, per post: the
// post row's searchable columns, the given meta keys and the post's terms (relationship, name and
// slug). The index compares them at each reconcile, and with the prints its documents carry at
// start, to find the changes the watermark cannot see (a bare UPDATE of a meta value or a column
// without post_modified_gmt). Three statements; the database computes a checksum per row and the
// rows are summed per post here: a GROUP BY post_id walks postmeta in post_id order, row by row,
// far slower than one scan.
func (db *DB) SearchPrints(ctx context.Context, metaKeys []string) (map[int64]uint64, error) {
	return db.searchPrints(ctx, metaKeys, nil)
}

// SearchPrintsOf is SearchPrints of the given posts only.
func (db *DB) SearchPrintsOf(ctx context.Context, metaKeys []string, ids []int64) (map[int64]uint64, error) {
	if len(ids) == 0 {
		return map[int64]uint64{}, nil
	}
	return db.searchPrints(ctx, metaKeys, ids)
}

func (db *DB) searchPrints(ctx context.Context, metaKeys []string, ids []int64) (map[int64]uint64, error) {
	out := map[int64]uint64{}
	if err := db.scanPrints(ctx, db.postPrintsSQL(len(ids)), int64Args(ids), out, 0); err != nil {
		return nil, err
	}
	if len(metaKeys) > 0 {
		args := append(stringArgs(metaKeys), int64Args(ids)...)
		if err := db.scanPrints(ctx, db.metaPrintsSQL(len(metaKeys), len(ids)), args, out, 1); err != nil {
			return nil, err
		}
	}
	if err := db.scanPrints(ctx, db.relationPrintsSQL(len(ids)), int64Args(ids), out, 2); err != nil {
		return nil, err
	}
	return out, nil
}

const indexedTypes = "('tribe_events', 'tribe_venue', 'tribe_organizer')"

// inIDs restricts a print statement to n posts (0: all).
func inIDs(col string, n int) string {
	if n == 0 {
		return ""
	}
	return " AND " + col + " IN (" + placeholders(n) + ")"
}

// postPrintsSQL checksums the columns an index document reads from the post row.
func (db *DB) postPrintsSQL(ids int) string {
	return "SELECT ID, CRC32(CONCAT_WS(CHAR(31), post_type, post_status, post_password, post_author, post_title, post_excerpt, post_content)) FROM " +
		db.t("posts") + " WHERE post_type IN " + indexedTypes + " AND post_status <> 'auto-draft'" + inIDs("ID", ids)
}

// metaPrintsSQL checksums every row of the given meta keys (meta_id included: which row is first
// decides get_post_meta's single value).
func (db *DB) metaPrintsSQL(keys, ids int) string {
	return "SELECT post_id, CRC32(CONCAT_WS(CHAR(31), meta_id, meta_key, meta_value)) FROM " + db.t("postmeta") +
		" WHERE meta_key IN (" + placeholders(keys) + ")" + inIDs("post_id", ids)
}

// relationPrintsSQL checksums every term relationship with its term's name and slug (a document
// holds the names).
func (db *DB) relationPrintsSQL(ids int) string {
	return "SELECT tr.object_id, CRC32(CONCAT_WS(CHAR(31), tr.term_taxonomy_id, t.name, t.slug)) FROM " + db.t("term_relationships") +
		" tr JOIN " + db.t("term_taxonomy") + " tt ON tt.term_taxonomy_id = tr.term_taxonomy_id JOIN " + db.t("terms") +
		" t ON t.term_id = tt.term_id WHERE 1 = 1" + inIDs("tr.object_id", ids)
}

// scanPrints adds (id, checksum) rows into out: the post rows (part 0) make the entries, the meta
// and relationship rows of those posts are summed into them, each part weighted apart so that
// equal checksums in different parts do not cancel.
func (db *DB) scanPrints(ctx context.Context, q string, args []any, out map[int64]uint64, part int) error {
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	weight := [3]uint64{1, 1_000_003, 998_244_353}[part]
	for rows.Next() {
		var id int64
		var sum sql.NullInt64
		if err := rows.Scan(&id, &sum); err != nil {
			return err
		}
		if _, ok := out[id]; !ok && part > 0 {
			continue // not a post the index holds
		}
		out[id] += (uint64(sum.Int64) + 1) * weight
	}
	return rows.Err()
}

// TermPrints checksums the name of every event category and tag, by term ID.
func (db *DB) TermPrints(ctx context.Context) (map[int64]uint64, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT DISTINCT t.term_id, CRC32(CONCAT_WS(CHAR(31), t.name, t.slug)) FROM "+db.t("terms")+
		" t JOIN "+db.t("term_taxonomy")+" tt ON tt.term_id = t.term_id WHERE tt.taxonomy IN ('tribe_events_cat', 'post_tag')")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]uint64{}
	for rows.Next() {
		var id, sum int64
		if err := rows.Scan(&id, &sum); err != nil {
			return nil, err
		}
		out[id] = uint64(sum)
	}
	return out, rows.Err()
}

// EventsWithTermIDs returns the events that have one of the given terms (term_id, not
// term_taxonomy_id).
func (db *DB) EventsWithTermIDs(ctx context.Context, termIDs []int64) ([]int64, error) {
	if len(termIDs) == 0 {
		return nil, nil
	}
	rows, err := db.sql.QueryContext(ctx, "SELECT DISTINCT tr.object_id FROM "+db.t("term_relationships")+" tr JOIN "+
		db.t("term_taxonomy")+" tt ON tt.term_taxonomy_id = tr.term_taxonomy_id JOIN "+db.t("posts")+
		" p ON p.ID = tr.object_id WHERE p.post_type = 'tribe_events' AND tt.term_id IN ("+placeholders(len(termIDs))+")",
		int64Args(termIDs)...)
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}
