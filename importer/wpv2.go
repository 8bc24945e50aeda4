package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/calendard/calendard/internal/phpserial"
)

// Extra is what WordPress core's wp/v2 routes show of a post that the plugin's v1 routes do not:
// the raw content and excerpt and the password (context=edit, so only with credentials), and the
// meta keys the plugin registers with show_in_rest (_EventURL, _EventCost, the currency keys...),
// which wp/v2 shows to anyone who can read the post.
type Extra struct {
	ID               int64
	Content, Excerpt *string // raw; nil when the source did not show them
	Password         *string
	Title            *string           // raw
	Meta             map[string]string // scalar meta as stored ("" for unset); nil when not shown
	// MetaIDs are the multi-valued ID meta (_EventVenueID, _EventOrganizerID) and TermIDs the
	// terms by taxonomy: the v1 record of a password-protected event shows neither.
	MetaIDs map[string][]int64
	TermIDs map[string][]int64
}

func decodeExtra(raw json.RawMessage) (*Extra, error) {
	f, err := newFields(raw)
	if err != nil {
		return nil, err
	}
	x := &Extra{ID: f.id("id", true)}
	rawOf := func(key string, limit int) *string {
		o := f.object(key)
		if o == nil || !o.has("raw") {
			return nil
		}
		s := o.str("raw", limit)
		f.errs = append(f.errs, prefixed(key, o.errs)...)
		return &s
	}
	x.Content, x.Excerpt = rawOf("content", MaxContentField), rawOf("excerpt", MaxContentField)
	x.Title = rawOf("title", MaxTextField)
	ids := func(raw json.RawMessage) ([]int64, bool) {
		var v []int64
		return v, json.Unmarshal(raw, &v) == nil
	}
	for _, tax := range []struct{ key, taxonomy string }{{"tags", "post_tag"}, {"tribe_events_cat", "tribe_events_cat"}} {
		if raw, ok := f.m[tax.key]; ok {
			if v, ok := ids(raw); ok {
				if x.TermIDs == nil {
					x.TermIDs = map[string][]int64{}
				}
				x.TermIDs[tax.taxonomy] = v
			} else {
				f.bad(tax.key, "not a list of IDs")
			}
		}
	}
	if f.has("password") {
		s := f.str("password", 255)
		x.Password = &s
	}
	if m := f.object("meta"); m != nil {
		x.Meta = map[string]string{}
		for k, v := range m.m {
			var s string
			switch {
			case json.Unmarshal(v, &s) == nil:
			case string(v) == "true":
				s = "1"
			case string(v) == "false" || string(v) == "null":
				s = ""
			case len(v) > 0 && v[0] == '[':
				if l, ok := ids(v); ok {
					if x.MetaIDs == nil {
						x.MetaIDs = map[string][]int64{}
					}
					x.MetaIDs[k] = l
				}
				continue
			case len(v) > 0 && v[0] == '{':
				continue
			default:
				s = string(v)
			}
			if len(s) > MaxTextField {
				f.bad("meta."+k, "%d bytes, more than the limit of %d", len(s), MaxTextField)
				continue
			}
			x.Meta[k] = s
		}
	}
	return x, f.err()
}

// extras reads wp/v2's view of every post of postType, by source ID. A source without wp/v2 (or
// that refuses it) leaves the v1 record as it is; the failure is reported.
func (im *Importer) extras(ctx context.Context, res Resource, postType string) map[int64]*Extra {
	q := url.Values{}
	if im.opts.User != "" {
		q.Set("context", "edit")
		q.Set("status", "publish,future,draft,pending,private,trash")
	}
	q = im.modifiedQuery(q)
	out := map[int64]*Extra{}
	for _, raw := range im.walk(ctx, res, "/wp/v2/"+postType, "", q) {
		x, err := decodeExtra(raw)
		if err != nil {
			im.fail(res, "wp/v2 "+itemName(raw), err)
			continue
		}
		out[x.ID] = x
	}
	return out
}

// Media is an attachment as wp/v2/media shows it.
type Media struct {
	Common
	Parent                      int64
	Title, Caption, Description string
	Alt                         string
	MimeType, GUID              string
	File                        string // _wp_attached_file, relative to the uploads
	Metadata                    string // _wp_attachment_metadata, PHP-serialized ("" for none)
}

// rawOrRendered reads {"raw","rendered"} (raw when the source shows it).
func (f *fields) rawOrRendered(key string, limit int) string {
	o := f.object(key)
	if o == nil {
		return f.str(key, limit)
	}
	s := o.str("rendered", limit)
	if o.has("raw") {
		s = o.str("raw", limit)
	}
	f.errs = append(f.errs, prefixed(key, o.errs)...)
	return s
}

func decodeMedia(raw json.RawMessage) (*Media, error) {
	f, err := newFields(raw)
	if err != nil {
		return nil, err
	}
	m := &Media{Common: f.commonOf(true), Parent: f.id("post", false),
		Title: f.rawOrRendered("title", MaxTextField), Caption: f.rawOrRendered("caption", MaxContentField),
		Description: f.rawOrRendered("description", MaxContentField), Alt: f.str("alt_text", MaxTextField),
		MimeType: f.plain("mime_type", 100), GUID: f.rawOrRendered("guid", MaxTextField)}
	// wp/v2 dates are "Y-m-d\TH:i:s" in date/date_gmt; common() read date_utc (v1's name).
	if m.DateUTC == "" {
		m.DateUTC = f.date("date_gmt", false)
	}
	if m.ModifiedUTC == "" {
		m.ModifiedUTC = f.date("modified_gmt", false)
	}
	src := f.str("source_url", MaxTextField)
	if md, ok := f.m["media_details"]; ok {
		file, meta, err := attachmentMetadata(md)
		if err != nil {
			f.bad("media_details", "%v", err)
		}
		m.File, m.Metadata = file, meta
	}
	if m.File == "" && src != "" {
		// A file that is not an image has no metadata: its path is the URL's after /uploads/.
		if _, after, ok := strings.Cut(src, "/wp-content/uploads/"); ok {
			m.File = after
		}
	}
	if m.GUID == "" {
		m.GUID = src
	}
	return m, f.err()
}

// attachmentMetadata turns wp/v2's media_details back into _wp_attachment_metadata: the REST
// controller renames each size's "mime-type" to "mime_type", adds "source_url" to each size and a
// "full" size; those are undone, and the keys keep their order.
func attachmentMetadata(raw json.RawMessage) (file, serialized string, err error) {
	v, err := orderedJSON(raw)
	if err != nil {
		return "", "", err
	}
	arr, ok := v.(*phpserial.Array)
	if !ok || arr.Len() == 0 {
		return "", "", nil
	}
	if f, ok := arr.Get("file"); ok {
		file, _ = f.(string)
	}
	if sv, ok := arr.Get("sizes"); ok {
		if sizes, ok := sv.(*phpserial.Array); ok {
			out := phpserial.NewArray()
			for _, e := range sizes.Entries() {
				if e.Key == "full" {
					continue
				}
				size, ok := e.Value.(*phpserial.Array)
				if !ok {
					out.Set(e.Key, e.Value)
					continue
				}
				out.Set(e.Key, restoreSize(size))
			}
			arr.Set("sizes", out)
		}
	}
	s, err := phpserial.Marshal(arr)
	return file, s, err
}

// restoreSize puts a size's keys back in the order image_make_intermediate_size stores them.
func restoreSize(size *phpserial.Array) *phpserial.Array {
	out := phpserial.NewArray()
	get := func(k string) (any, bool) { return size.Get(k) }
	for _, k := range []string{"file", "width", "height"} {
		if v, ok := get(k); ok {
			out.Set(k, v)
		}
	}
	if v, ok := get("mime_type"); ok {
		out.Set("mime-type", v)
	}
	for _, e := range size.Entries() {
		switch e.Key {
		case "file", "width", "height", "mime_type", "source_url":
			continue
		}
		out.Set(e.Key, e.Value)
	}
	return out
}

// orderedJSON decodes JSON into PHP values with objects as ordered arrays (integers as int64).
func orderedJSON(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeOrdered(dec, 0)
	if err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data")
	}
	return v, nil
}

func decodeOrdered(dec *json.Decoder, depth int) (any, error) {
	if depth > 32 {
		return nil, fmt.Errorf("nested too deep")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		arr := phpserial.NewArray()
		switch t {
		case '{':
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeOrdered(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr.Set(k, v)
			}
		case '[':
			for i := 0; dec.More(); i++ {
				v, err := decodeOrdered(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr.Set(int64(i), v)
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return arr, nil
	case json.Number:
		if n, err := t.Int64(); err == nil {
			return n, nil
		}
		return t.Float64()
	default:
		return t, nil // string, bool, nil
	}
}
