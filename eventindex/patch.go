package eventindex

import (
	"cmp"
	"slices"
)

// Patching: a write replaces a few events in a copy of the snapshot's lists, without a sort.

// patched returns a copy of s with the events of ids replaced by fresh (absent: gone). It costs a
// copy of the lists, not a sort: O(events) with small constants, so a write stays fast on a large
// calendar.
func (s *snapshot) patched(ids []int64, fresh map[int64]*Event) *snapshot {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	n := &snapshot{mode: s.mode, blockLen: s.blockLen, byID: make(map[int64]*Event, len(s.byID)+len(fresh)), textless: s.textless, idless: s.idless}
	for id, e := range s.byID {
		n.byID[id] = e
	}
	gone := map[*Event]bool{}
	var added []*Event
	for _, id := range ids {
		if old := s.byID[id]; old != nil {
			gone[old] = true
		}
		delete(n.byID, id)
	}
	for _, id := range ids {
		if e := fresh[id]; e != nil && n.byID[id] == nil {
			n.byID[id] = e
			if main, ok := listable(e); ok && main {
				added = append(added, e)
			}
		}
	}
	slices.SortFunc(added, mainOrder)
	var remap, addedAt []int32
	n.main, remap, addedAt = mergeOrdered(s.main, gone, added)
	n.patchedText(s, remap, addedAt)
	for _, e := range s.slow {
		if !gone[e] {
			n.slow = append(n.slow, e)
		}
	}
	for _, id := range ids {
		if e := n.byID[id]; e != nil && fresh[id] == e {
			if main, ok := listable(e); ok && !main {
				n.slow = append(n.slow, e)
			}
		}
	}
	slices.SortFunc(n.slow, func(a, b *Event) int { return cmp.Compare(a.id, b.id) })
	// Byte pairs: the kept events' are copied from their old positions, only the added hashed.
	from := make([]int32, len(n.main))
	for i := range from {
		from[i] = -1
	}
	for old, i := range remap {
		if i >= 0 {
			from[i] = int32(old)
		}
	}
	n.fillKeys(func(i int, e *Event) gramMask {
		if from[i] >= 0 {
			return s.grams[from[i]]
		}
		return e.gramMask()
	})
	// Posting lists: every position moves by the events removed and added before it (remap), then
	// the added events join the lists of their IDs.
	for _, pl := range []struct {
		old postings
		new *postings
		ids func(*Event) []int64
	}{{s.venues, &n.venues, (*Event).venues}, {s.orgs, &n.orgs, (*Event).orgs},
		{s.cats, &n.cats, (*Event).cats}, {s.tags, &n.tags, (*Event).tags}} {
		m := make(postings, len(pl.old))
		for k, l := range pl.old {
			out := make([]int32, 0, len(l))
			for _, i := range l {
				if j := remap[i]; j >= 0 {
					out = append(out, j)
				}
			}
			if len(out) > 0 {
				m[k] = out
			}
		}
		grown := map[int64]bool{}
		for a, e := range added {
			for _, k := range slices.Compact(slices.Sorted(slices.Values(pl.ids(e)))) {
				m[k] = append(m[k], addedAt[a])
				grown[k] = true
			}
		}
		for k := range grown {
			slices.Sort(m[k])
		}
		*pl.new = m
	}
	return n
}

// mergeOrdered returns list without the gone events, with add (in list order) merged in, and where
// each event went: remap[j] is list[j]'s new position (-1: gone), addedAt[k] add[k]'s.
func mergeOrdered(list []*Event, gone map[*Event]bool, add []*Event) (out []*Event, remap, addedAt []int32) {
	out = make([]*Event, 0, len(list)+len(add))
	remap, addedAt = make([]int32, len(list)), make([]int32, len(add))
	i := 0
	for j, e := range list {
		if gone[e] {
			remap[j] = -1
			continue
		}
		for i < len(add) && mainOrder(add[i], e) < 0 {
			addedAt[i] = int32(len(out))
			out = append(out, add[i])
			i++
		}
		remap[j] = int32(len(out))
		out = append(out, e)
	}
	for ; i < len(add); i++ {
		addedAt[i] = int32(len(out))
		out = append(out, add[i])
	}
	return out, remap, addedAt
}
