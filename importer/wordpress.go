package importer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/cost"
)

// Meta keys of an imported post: where it came from, and the fingerprint of the source record it
// was last written from (a re-run writes nothing while the fingerprint matches).
const (
	MetaSource = "_calendard_import_source"
	MetaHash   = "_calendard_import_hash"
)

// WordPress is the Target of calendard's own store: records go through the root package's write
// services (SaveEvent, CreateLinked/UpdateLinked, InsertTerm/UpdateTerm), the code the REST
// endpoints' POST and PUT handlers run, one transaction per record.
type WordPress struct {
	Writer calendard.Writer
	Site   *calendard.Site
	// User writes; it needs unfiltered_html (an administrator) or content is filtered as it would be
	// for that user by the plugin.
	User  *calendard.User
	Clock func() time.Time
}

func (w *WordPress) write(ctx context.Context, fn func(tx calendard.WriteTx) error) error {
	clock := w.Clock
	if clock == nil {
		clock = time.Now
	}
	return w.Writer.Write(ctx, clock, fn)
}

// errUnchanged ends a transaction that found nothing to write (it rolls back: nothing was written).
var errUnchanged = errors.New("unchanged")

// SaveSite stores the site's name, description and time zone as the index shows them.
func (w *WordPress) SaveSite(ctx context.Context, idx *Index) (bool, error) {
	want := map[string]string{"blogname": idx.Name, "blogdescription": idx.Description, "timezone_string": idx.TimezoneString}
	if idx.TimezoneString == "" {
		// An offset-only site: gmt_offset is what it runs on.
		switch v := idx.GMTOffset.(type) {
		case float64:
			want["gmt_offset"] = strconv.FormatFloat(v, 'f', -1, 64)
		case string:
			want["gmt_offset"] = v
		}
	}
	wrote := false
	err := w.write(ctx, func(tx calendard.WriteTx) error {
		for _, name := range []string{"blogname", "blogdescription", "timezone_string", "gmt_offset"} {
			v, ok := want[name]
			if !ok {
				continue
			}
			if cur, _, err := tx.Option(ctx, name); err != nil {
				return err
			} else if cur == v {
				continue
			}
			if err := tx.UpdateOption(ctx, name, v); err != nil {
				return err
			}
			wrote = true
		}
		if !wrote {
			return errUnchanged
		}
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return false, nil
	}
	return wrote, err
}

// SaveTerm finds the term by the source's ID (when that term has the source's slug) or by slug in
// its taxonomy, and inserts or updates it; an identical term is left alone.
func (w *WordPress) SaveTerm(ctx context.Context, t *Term, parent int64) (int64, bool, error) {
	hier := t.Taxonomy == calendard.TaxonomyCategory
	var id int64
	err := w.write(ctx, func(tx calendard.WriteTx) error {
		if err := calendard.LockTermWrites(ctx, tx); err != nil {
			return err
		}
		cur, err := tx.TermByID(ctx, t.ID, t.Taxonomy)
		if err != nil {
			return err
		}
		if cur == nil || cur.Slug != t.Slug {
			if cur, err = tx.TermBySlug(ctx, t.Slug, t.Taxonomy); err != nil {
				return err
			}
		}
		if cur != nil {
			id = cur.ID
			if cur.Name == t.Name && cur.Description == t.Description && cur.Parent == parent {
				return errUnchanged
			}
			_, err := calendard.UpdateTerm(ctx, tx, cur.ID, t.Taxonomy, hier, calendard.TermUpdate{
				Name: &t.Name, Slug: &t.Slug, Description: &t.Description, Parent: &parent})
			return err
		}
		nt, err := calendard.InsertTerm(ctx, tx, calendard.TermArgs{Taxonomy: t.Taxonomy, Name: t.Name, Slug: t.Slug,
			Description: t.Description, Parent: parent, Hierarchical: hier, ID: t.ID, TaxonomyID: t.TaxonomyID})
		if err != nil {
			return err
		}
		id = nt.ID
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return id, false, nil
	}
	return id, err == nil, err
}

// find returns the post imported from source, locked, or nil.
func find(ctx context.Context, tx calendard.WriteTx, source string) (*calendard.Post, error) {
	ids, err := tx.PostIDsByMeta(ctx, MetaSource, source)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return tx.LockPost(ctx, ids[0])
}

// stamp records the source identity and fingerprint on a written post.
func stamp(ctx context.Context, tx calendard.WriteTx, id int64, source, hash string) error {
	if err := calendard.UpdatePostMeta(ctx, tx, id, MetaSource, source); err != nil {
		return err
	}
	return calendard.UpdatePostMeta(ctx, tx, id, MetaHash, hash)
}

// linkedData is the Tribe__Events__Venue/Organizer create and update array of a source post.
func linkedData(c *Common) calendard.LinkedArray {
	data := calendard.LinkedArray{
		{Key: "post_status", Value: c.Status}, {Key: "post_date", Value: c.Date},
		{Key: "post_name", Value: c.Slug},
	}
	if c.DateUTC != "" {
		data = append(data, calendard.KV{Key: "post_date_gmt", Value: c.DateUTC})
	}
	if c.Modified != "" {
		data = append(data, calendard.KV{Key: "post_modified", Value: c.Modified})
	}
	if c.ModifiedUTC != "" {
		data = append(data, calendard.KV{Key: "post_modified_gmt", Value: c.ModifiedUTC})
	}
	if c.Author != 0 {
		data = append(data, calendard.KV{Key: "post_author", Value: strconv.FormatInt(c.Author, 10)})
	}
	if c.ImageID != 0 {
		data = append(data, calendard.KV{Key: "FeaturedImage", Value: strconv.FormatInt(c.ImageID, 10)})
	}
	return data
}

func (w *WordPress) saveLinked(ctx context.Context, postType string, c *Common, data calendard.LinkedArray, source, hash string) (int64, bool, error) {
	var id int64
	err := w.write(ctx, func(tx calendard.WriteTx) error {
		cur, err := find(ctx, tx, source)
		if err != nil {
			return err
		}
		if cur != nil {
			id = cur.ID
			if cur.Meta.Value(MetaHash) == hash {
				return errUnchanged
			}
			data = append(data, calendard.KV{Key: "import_no_revision", Value: "1"})
			if err := calendard.UpdateLinked(ctx, tx, w.Site, w.User, postType, cur.ID, data); err != nil {
				return err
			}
		} else {
			data = append(data, calendard.KV{Key: "import_id", Value: strconv.FormatInt(c.ID, 10)})
			if id, err = calendard.CreateLinked(ctx, tx, w.Site, w.User, postType, data, false); err != nil {
				return err
			}
			if id == 0 {
				return fmt.Errorf("the write path refused the %s", postType)
			}
		}
		return stamp(ctx, tx, id, source, hash)
	})
	if errors.Is(err, errUnchanged) {
		return id, false, nil
	}
	return id, err == nil, err
}

// SaveVenue creates or updates a venue.
func (w *WordPress) SaveVenue(ctx context.Context, v *Venue, source, hash string) (int64, bool, error) {
	data := linkedData(&v.Common)
	data = append(data, calendard.LinkedArray{
		{Key: "Venue", Value: v.Title}, {Key: "Description", Value: v.Description},
		{Key: "Address", Value: v.Address}, {Key: "City", Value: v.City}, {Key: "Country", Value: v.Country},
		{Key: "Province", Value: v.Province}, {Key: "State", Value: v.State}, {Key: "StateProvince", Value: v.StateProvince},
		{Key: "Zip", Value: v.Zip}, {Key: "Phone", Value: v.Phone}, {Key: "URL", Value: v.Website},
		{Key: "ShowMap", Value: boolWord(v.ShowMap)}, {Key: "ShowMapLink", Value: boolWord(v.ShowMapLink)},
	}...)
	if v.Lat != "" || v.Lng != "" {
		data = append(data, calendard.KV{Key: "Lat", Value: v.Lat}, calendard.KV{Key: "Lng", Value: v.Lng})
	}
	return w.saveLinked(ctx, calendard.PostTypeVenue, &v.Common, data, source, hash)
}

// SaveOrganizer creates or updates an organizer.
func (w *WordPress) SaveOrganizer(ctx context.Context, o *Organizer, source, hash string) (int64, bool, error) {
	data := linkedData(&o.Common)
	data = append(data, calendard.LinkedArray{
		{Key: "Organizer", Value: o.Title}, {Key: "Description", Value: o.Description},
		{Key: "Email", Value: o.Email}, {Key: "Phone", Value: o.Phone}, {Key: "Website", Value: o.Website},
	}...)
	return w.saveLinked(ctx, calendard.PostTypeOrganizer, &o.Common, data, source, hash)
}

func boolWord(b bool) string {
	if b {
		return "1"
	}
	return "false"
}

// SaveEvent creates or updates an event through SaveEvent, the REST endpoints' write path.
func (w *WordPress) SaveEvent(ctx context.Context, e *Event, l Links, source, hash string) (int64, bool, error) {
	str := func(s string) *string { return &s }
	ew := &calendard.EventWrite{
		Title: str(e.Title), Content: str(e.Description), Excerpt: str(e.Excerpt), Slug: str(e.Slug),
		Status: e.Status, Date: str(e.Date), Timezone: e.Timezone, AllDay: e.AllDay, Start: e.Start, End: e.End,
		ImageID: l.Image, ShowMap: e.ShowMap, ShowMapLink: e.ShowMapLink,
		HideFromUpcoming: e.HideFromListings, Sticky: e.Sticky, Featured: e.Featured,
		VenueID: l.Venue, OrganizerIDs: l.Organizers, NoRevision: true,
	}
	ew.Author, ew.DateGMT, ew.Modified, ew.ModifiedGMT = nonZero(e.Author), nonEmpty(e.DateUTC), nonEmpty(e.Modified), nonEmpty(e.ModifiedUTC)
	ew.Password = e.Password
	ew.Parent = &e.Parent
	if e.RawCost != nil {
		st := cost.ForWrite([]string{*e.RawCost}, false)
		ew.Cost = &st
	} else if e.Cost != "" {
		st := cost.ForWrite([]string{e.Cost}, false)
		ew.Cost = &st
	}
	if !e.WebsiteUnset {
		ew.Website = e.Website
	}
	cats, tags := termInputs(l.Categories), termInputs(l.Tags)
	ew.Categories, ew.Tags = &cats, &tags
	var id int64
	err := w.write(ctx, func(tx calendard.WriteTx) error {
		cur, err := find(ctx, tx, source)
		if err != nil {
			return err
		}
		if cur != nil {
			if cur.Meta.Value(MetaHash) == hash {
				id = cur.ID
				return errUnchanged
			}
			ew.ID = cur.ID
		} else {
			ew.ImportID = e.ID
		}
		if id, err = calendard.SaveEvent(ctx, tx, w.Site, w.User, ew); err != nil {
			return err
		}
		if err := eventMeta(ctx, tx, id, e); err != nil {
			return err
		}
		return stamp(ctx, tx, id, source, hash)
	})
	if errors.Is(err, errUnchanged) {
		return id, false, nil
	}
	return id, err == nil, err
}

func termInputs(ids []int64) []calendard.TermInput {
	out := make([]calendard.TermInput, len(ids))
	for i, id := range ids {
		out[i] = calendard.TermInput{Numeric: true, ID: id, Text: strconv.FormatInt(id, 10)}
	}
	return out
}

// eventMeta makes the meta the plugin's write path derives (the currency from the cost string,
// the website) what the source stores: the answers show these keys as they are.
func eventMeta(ctx context.Context, tx calendard.WriteTx, id int64, e *Event) error {
	keys := []struct {
		key, value string
		present    bool
	}{
		{"_EventURL", e.Website, !e.WebsiteUnset},
		{"_EventCurrencySymbol", e.CurrencySymbol, e.CurrencySymbol != ""},
		{"_EventCurrencyPosition", e.CurrencyPosition, e.CurrencyPosition != ""},
		{"_EventCurrencyCode", e.CurrencyCode, e.CurrencyCode != ""},
	}
	if e.RawCost != nil {
		keys = append(keys, struct {
			key, value string
			present    bool
		}{"_EventCost", *e.RawCost, *e.RawCost != ""})
	}
	for _, k := range keys {
		if err := exactMeta(ctx, tx, id, k.key, k.value, k.present); err != nil {
			return err
		}
	}
	return nil
}

// exactMeta sets key to value, or removes it when the source has none.
func exactMeta(ctx context.Context, tx calendard.WriteTx, id int64, key, value string, present bool) error {
	if present {
		return calendard.UpdatePostMeta(ctx, tx, id, key, value)
	}
	return tx.DeleteMeta(ctx, id, key, nil)
}

// SaveMedia creates or updates an attachment (wp_insert_attachment: the post, its file and its
// metadata).
func (w *WordPress) SaveMedia(ctx context.Context, m *Media, source, hash string) (int64, bool, error) {
	str := func(s string) *string { return &s }
	a := calendard.PostArgs{Type: calendard.PostTypeAttach, Status: m.Status, NoRevision: true, Title: str(m.Title),
		Content: str(m.Description), Excerpt: str(m.Caption), Name: str(m.Slug), Parent: &m.Parent,
		Date: str(m.Date), MimeType: str(m.MimeType), GUID: str(m.GUID)}
	a.Author, a.DateGMT, a.Modified, a.ModifiedGMT = nonZero(m.Author), nonEmpty(m.DateUTC), nonEmpty(m.Modified), nonEmpty(m.ModifiedUTC)
	var id int64
	err := w.write(ctx, func(tx calendard.WriteTx) error {
		cur, err := find(ctx, tx, source)
		if err != nil {
			return err
		}
		if cur != nil {
			id = cur.ID
			if cur.Meta.Value(MetaHash) == hash {
				return errUnchanged
			}
			a.ID = cur.ID
		} else {
			a.ImportID = m.ID
		}
		p, err := calendard.SavePost(ctx, tx, w.Site, w.User, a)
		if err != nil {
			return err
		}
		id = p.ID
		for _, k := range []struct{ key, value string }{
			{"_wp_attached_file", m.File}, {"_wp_attachment_metadata", m.Metadata}, {"_wp_attachment_image_alt", m.Alt}} {
			if err := exactMeta(ctx, tx, id, k.key, k.value, k.value != ""); err != nil {
				return err
			}
		}
		return stamp(ctx, tx, id, source, hash)
	})
	if errors.Is(err, errUnchanged) {
		return id, false, nil
	}
	return id, err == nil, err
}

// ImportedPosts returns the posts whose source identity starts with prefix, by identity.
func (w *WordPress) ImportedPosts(ctx context.Context, prefix string) (map[string]int64, error) {
	out := map[string]int64{}
	err := w.write(ctx, func(tx calendard.WriteTx) error {
		all, err := tx.MetaByKey(ctx, MetaSource)
		if err != nil {
			return err
		}
		for id, vals := range all {
			for _, v := range vals {
				if strings.HasPrefix(v, prefix) {
					out[v] = id
				}
			}
		}
		return errUnchanged
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return out, err
}

// DeletePost deletes a post for good, as wp_delete_post($id, true) does.
func (w *WordPress) DeletePost(ctx context.Context, id int64) error {
	return w.write(ctx, func(tx calendard.WriteTx) error { return calendard.DeletePost(ctx, tx, id) })
}

// nonEmpty is s where the source gave it, nil (the write path's own value) where it is empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// nonZero is n where the source gave it, nil where it is 0.
func nonZero(n int64) *int64 {
	if n == 0 {
		return nil
	}
	return &n
}
