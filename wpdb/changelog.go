package wpdb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// The changelog lets every instance's watermark poll see each of calendard's writes, and tell
// which posts it changed. The rest of the watermark cannot see them all: post_modified_gmt has
// second granularity (two saves of one post in one second leave it unchanged), a meta value
// updated in place keeps its meta_id, and no revision is written. So every write transaction that
// changed something also rewrites one option, changesOption, as its last statement: the option
// holds the last changelogKeep writes, each with a sequence number, the posts it touched, and the
// fingerprints of the watermark (without the changelog) just before and just after it. A poll
// that finds the sequence moved, and the fingerprints chained from its last reading to this one,
// knows that nothing but those writes happened and publishes exactly what they changed (a patch
// of the event index, as on the instance that wrote); otherwise Change{All}.
//
// An option is what a WordPress plugin keeps its own state in: WordPress and the plugin ignore an
// option they do not know, it is not autoloaded, and it is not a setting any REST route shows.
// The row is locked from that last statement to the commit only, so concurrent writes queue for
// it only that long.

// changesOption is the option_name of the changelog.
const changesOption = "calendard_changes"

// changelogKeep is how many writes the changelog keeps: a poll further behind publishes All.
const changelogKeep = 32

// changelogMaxPosts is the most post IDs one entry lists; a larger write is logged as All.
const changelogMaxPosts = 256

const changelogHeader = "calendard changes v1"

// changelogEntry is one write: "seq before after flags ids" (flags: a = All, t = terms, - = none;
// ids comma-separated or -; before and after "-" when the write's watermark was not read).
type changelogEntry struct {
	seq           uint64
	before, after string
	all, terms    bool
	posts         []int64
}

// fingerprint is the watermark without the changelog, shortened: what a changelog entry chains.
func (w watermark) fingerprint() string {
	h := sha256.New()
	for _, n := range []int64{w.posts, w.maxPost, w.maxMeta, w.rels, w.terms, w.occ} {
		h.Write(strconv.AppendInt(nil, n, 10))
		h.Write([]byte{0})
	}
	h.Write([]byte(w.modified + "\x00" + w.termsig + "\x00"))
	h.Write(w.options[:])
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// parseChangelog reads the option's value; ok is false for anything else than a changelog.
func parseChangelog(s string) (entries []changelogEntry, ok bool) {
	lines := strings.Split(s, "\n")
	if lines[0] != changelogHeader {
		return nil, false
	}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) != 5 {
			return nil, false
		}
		seq, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return nil, false
		}
		e := changelogEntry{seq: seq, before: f[1], after: f[2], all: strings.Contains(f[3], "a"), terms: strings.Contains(f[3], "t")}
		if f[4] != "-" {
			for _, p := range strings.Split(f[4], ",") {
				id, err := strconv.ParseInt(p, 10, 64)
				if err != nil {
					return nil, false
				}
				e.posts = append(e.posts, id)
			}
		}
		entries = append(entries, e)
	}
	return entries, true
}

func formatChangelog(entries []changelogEntry) string {
	var b strings.Builder
	b.WriteString(changelogHeader)
	for _, e := range entries {
		flags := ""
		if e.all {
			flags += "a"
		}
		if e.terms {
			flags += "t"
		}
		if flags == "" {
			flags = "-"
		}
		b.WriteString("\n" + strconv.FormatUint(e.seq, 10) + " " + e.before + " " + e.after + " " + flags + " ")
		if len(e.posts) == 0 {
			b.WriteString("-")
		}
		for i, id := range e.posts {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(id, 10))
		}
	}
	return b.String()
}

// lastSeq is the sequence number of a changelog's newest entry (0: none, or no changelog).
func lastSeq(s string) uint64 {
	entries, ok := parseChangelog(s)
	if !ok || len(entries) == 0 {
		return 0
	}
	return entries[len(entries)-1].seq
}

// changeBetween is what a poll publishes when the watermark moved from last to now: exactly the
// changes of calendard's writes logged in between when they account for all of the move, else All.
func changeBetween(last, now watermark) Change {
	all := Change{All: true}
	entries, ok := parseChangelog(now.changes)
	if !ok {
		return all
	}
	from := lastSeq(last.changes)
	if last.changes != "" && from == 0 {
		return all // the last reading had something else than a changelog
	}
	fp := last.fingerprint()
	var c Change
	next := from + 1
	for _, e := range entries {
		if e.seq < next {
			continue
		}
		if e.seq != next || e.before != fp || e.all || e.before == "-" {
			return all
		}
		for _, id := range e.posts {
			if !slices.Contains(c.Posts, id) {
				c.Posts = append(c.Posts, id)
			}
		}
		c.Terms = c.Terms || e.terms
		fp = e.after
		next++
	}
	if next == from+1 || fp != now.fingerprint() {
		return all
	}
	return c
}

// logChange appends this transaction's write to the changelog and returns the option's new value.
// before and end are the watermark readings at the start of the transaction and after its own
// statements (tracked false: none were read).
func (t *Tx) logChange(ctx context.Context, before, end watermark, tracked bool) (string, error) {
	e := changelogEntry{before: "-", after: "-", all: t.optionsChanged || t.rebuild || len(t.touched) > changelogMaxPosts, terms: t.termsChanged}
	if tracked {
		e.before, e.after = before.fingerprint(), end.fingerprint()
	}
	if !e.all {
		e.posts = t.touched
	}
	for try := 0; ; try++ {
		cur, exists, err := t.lockedOption(ctx, changesOption)
		if err != nil {
			return "", err
		}
		entries, _ := parseChangelog(cur)
		e.seq = 1
		if n := len(entries); n > 0 {
			e.seq = entries[n-1].seq + 1
		}
		entries = append(entries, e)
		entries = entries[max(0, len(entries)-changelogKeep):]
		val := formatChangelog(entries)
		if exists {
			_, err = t.exec(ctx, "UPDATE "+t.t("options")+" SET option_value = ? WHERE option_name = ?", val, changesOption)
			return val, err
		}
		// Not autoloaded: 'off' as WordPress 6.6 writes it; older versions load only 'yes'.
		res, err := t.exec(ctx, t.db.insertIgnore()+" INTO "+t.t("options")+" (option_name, option_value, autoload) VALUES (?, ?, 'off')",
			changesOption, val)
		if err != nil {
			return "", err
		}
		if n, err := res.RowsAffected(); err != nil || n > 0 || try > 0 {
			if err == nil && n == 0 {
				err = errors.New("wpdb: the changelog option could not be written")
			}
			return val, err
		}
		// Another transaction added the row meanwhile: lock it and append to it.
	}
}

// lockedOption reads an option's value, locking its row until the transaction ends.
func (t *Tx) lockedOption(ctx context.Context, name string) (value string, exists bool, err error) {
	rows, err := t.query(ctx, "SELECT option_value FROM "+t.t("options")+" WHERE option_name = ?"+t.db.forUpdate(), name)
	if err != nil {
		return "", false, err
	}
	defer rows.Close()
	if rows.Next() {
		exists = true
		err = rows.Scan(&value)
	}
	if err == nil {
		err = rows.Err()
	}
	return value, exists, err
}

// insertIgnore is an INSERT that skips a row whose unique key exists.
func (db *DB) insertIgnore() string {
	if db.dialect == SQLite {
		return "INSERT OR IGNORE"
	}
	return "INSERT IGNORE"
}
