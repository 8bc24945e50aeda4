package importer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard"
)

// SinceOverlap widens a --since window backwards: "last" is this machine's clock and the source
// dates its records by its own, so a small skew must not hide a change. Re-reading a record that
// did not change writes nothing (its hash matches).
const SinceOverlap = 2 * time.Minute

// RunLog is a Target that remembers when the last complete run from a source began (what
// `--since last` starts from).
type RunLog interface {
	LastRun(ctx context.Context, source string) (time.Time, bool, error)
	SetLastRun(ctx context.Context, source string, began time.Time) error
}

// lastRunOption is the wp_options row of a source's last complete run (one per source, so two
// sources imported into one site keep their own).
func lastRunOption(source string) string {
	h := sha256.Sum256([]byte(source))
	return "_calendard_import_last_" + hex.EncodeToString(h[:8])
}

// LastRun reads the start time of the last complete run from source.
func (w *WordPress) LastRun(ctx context.Context, source string) (time.Time, bool, error) {
	var t time.Time
	found := false
	err := w.write(ctx, func(tx calendard.WriteTx) error {
		v, ok, err := tx.Option(ctx, lastRunOption(source))
		if err != nil || !ok {
			return errors.Join(err, errUnchanged)
		}
		if t, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return fmt.Errorf("option %s: %w", lastRunOption(source), err)
		}
		found = true
		return errUnchanged
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return t, found, err
}

// SetLastRun records the start time of a complete run from source.
func (w *WordPress) SetLastRun(ctx context.Context, source string, began time.Time) error {
	return w.write(ctx, func(tx calendard.WriteTx) error {
		return tx.UpdateOption(ctx, lastRunOption(source), began.UTC().Format(time.RFC3339Nano))
	})
}

// resolveSince sets im.since: Options.Since, or with SinceLast the start of the last complete run
// (none: a full run), less SinceOverlap.
func (im *Importer) resolveSince(ctx context.Context) error {
	since := im.opts.Since
	if im.opts.SinceLast {
		log, ok := im.target.(RunLog)
		if !ok {
			return fmt.Errorf("--since last: the target keeps no run log")
		}
		last, found, err := log.LastRun(ctx, im.sum.Source)
		if err != nil {
			return fmt.Errorf("--since last: %w", err)
		}
		im.lastRun = last
		if !found {
			since = time.Time{}
		} else {
			since = last
		}
	} else if log, ok := im.target.(RunLog); ok && !since.IsZero() {
		last, _, err := log.LastRun(ctx, im.sum.Source)
		if err != nil {
			return err
		}
		im.lastRun = last
	}
	im.sum.Since = since
	if !since.IsZero() {
		im.since = since.Add(-SinceOverlap)
	}
	return nil
}

// recordRun stores this run's start as the last complete run: only when it left nothing behind
// (no failure), and only when it covered everything since the previous one (a full run, a
// `--since last` run, or an earlier --since).
func (im *Importer) recordRun(ctx context.Context, began time.Time) error {
	log, ok := im.target.(RunLog)
	if !ok || len(im.sum.Failures) > 0 {
		return nil
	}
	if !im.opts.SinceLast && !im.opts.Since.IsZero() && (im.lastRun.IsZero() || im.opts.Since.After(im.lastRun)) {
		return nil
	}
	return log.SetLastRun(ctx, im.sum.Source, began)
}

// loadImported fills the source-to-target ID maps with what earlier runs imported, so a --since run
// links to records it does not read again.
func (im *Importer) loadImported(ctx context.Context) error {
	imported, err := im.target.ImportedPosts(ctx, im.sum.Source+"#")
	if err != nil {
		return fmt.Errorf("finding the imported posts: %w", err)
	}
	for source, id := range imported {
		typ, sid, ok := strings.Cut(strings.TrimPrefix(source, im.sum.Source+"#"), "/")
		res, known := postTypes[typ]
		n, err := strconv.ParseInt(sid, 10, 64)
		if ok && known && err == nil {
			im.ids[res][n] = id
			if im.imported[res] == nil {
				im.imported[res] = map[int64]bool{}
			}
			im.imported[res][n] = true
		}
	}
	return nil
}

// modifiedQuery adds wp/v2's modified_after filter in a --since run. The time carries its offset:
// WordPress reads a time without one in the site's time zone (and compares it with post_modified).
func (im *Importer) modifiedQuery(q url.Values) url.Values {
	if !im.since.IsZero() {
		q.Set("modified_after", im.since.UTC().Format(time.RFC3339))
	}
	return q
}

// skip says whether a --since run leaves a record alone: imported before, dated (modified_utc)
// before the window, and absent from wp/v2's list of what was modified in it. It is counted as
// unchanged.
func (im *Importer) skip(res Resource, raw json.RawMessage, extras map[int64]*Extra) bool {
	id, ok := im.unchanged(res, raw, extras)
	if !ok {
		return false
	}
	im.record(res, id, im.ids[res][id], false)
	im.progress(res)
	return true
}

// unchanged is skip's test, returning the record's source ID.
func (im *Importer) unchanged(res Resource, raw json.RawMessage, extras map[int64]*Extra) (int64, bool) {
	if im.since.IsZero() {
		return 0, false
	}
	var v struct {
		ID          int64  `json:"id"`
		Modified    string `json:"modified"`
		ModifiedUTC string `json:"modified_utc"`
	}
	if json.Unmarshal(raw, &v) != nil || !im.imported[res][v.ID] || extras[v.ID] != nil {
		return 0, false
	}
	t, err := time.Parse(DBDateTime, strings.Replace(v.ModifiedUTC, "T", " ", 1))
	if err != nil && im.loc != nil {
		// A draft's GMT dates are unset: its local modified date, in the source's time zone.
		t, err = time.ParseInLocation(DBDateTime, strings.Replace(v.Modified, "T", " ", 1), im.loc)
	}
	if err != nil || !t.Before(im.since) {
		return 0, false
	}
	return v.ID, true
}

// siteLocation is the source's time zone as its index tells it (nil when it does not).
func siteLocation(idx *Index) *time.Location {
	if idx.TimezoneString != "" {
		if loc, err := time.LoadLocation(idx.TimezoneString); err == nil {
			return loc
		}
	}
	var hours float64
	switch v := idx.GMTOffset.(type) {
	case float64:
		hours = v
	case string:
		var err error
		if hours, err = strconv.ParseFloat(v, 64); err != nil {
			return nil
		}
	default:
		return nil
	}
	return time.FixedZone("", int(hours*3600))
}

// completeExtras fetches one by one wp/v2's view of the records a --since run writes that the
// modified_after list did not show (a record dated oddly, or one the list leaves out): written
// without it, a record would lose its raw content.
func (im *Importer) completeExtras(ctx context.Context, res Resource, postType string, raws []json.RawMessage, extras map[int64]*Extra) {
	if im.since.IsZero() || im.opts.User == "" {
		return
	}
	var missing []int64
	for _, raw := range raws {
		var v struct {
			ID int64 `json:"id"`
		}
		if _, skip := im.unchanged(res, raw, extras); skip || json.Unmarshal(raw, &v) != nil || v.ID <= 0 || extras[v.ID] != nil {
			continue
		}
		missing = append(missing, v.ID)
	}
	route := func(id int64) string { return "/wp/v2/" + postType + "/" + strconv.FormatInt(id, 10) }
	for _, raw := range im.fetchEachQ(ctx, res, missing, route, url.Values{"context": {"edit"}}, false) {
		if x, err := decodeExtra(raw); err == nil {
			extras[x.ID] = x
		} else {
			im.fail(res, "wp/v2 "+itemName(raw), err)
		}
	}
}
