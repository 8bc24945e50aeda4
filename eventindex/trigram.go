package eventindex

import (
	"encoding/binary"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// The search's inverted index: which events' texts hold each (hashed) byte trigram, so that a
// search reads the few events that can hold its terms instead of every event's byte pairs.

// textIndex maps each bucket of hashed byte trigrams to the slots (positions in the main list of
// the compile it was built for) whose search text holds a trigram of the bucket, ascending and
// delta-varint coded in one array. A bucket held by more than a share of the slots (denseShare) is
// dense: its list is not kept, as it narrows a search little and would be most of the index. Every
// trigram of Event.text and Event.body is indexed as stored, the column separators included, so
// the slots whose lists a term's trigrams all name are a superset of the events whose hasText
// holds the term.
type textIndex struct {
	slots int
	shift uint8 // bucket = hashed trigram >> shift
	off   []uint32
	dense []uint64 // bit per bucket
	data  []byte
}

// denseShare: a bucket held by more than slots/denseShare slots (and minDense) keeps no list.
const (
	denseShare = 32
	minDense   = 64
)

func (x *textIndex) bucket(a, b, c byte) uint32 {
	return (uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 0x9E3779B1 >> x.shift
}

func (x *textIndex) isDense(b uint32) bool { return x.dense[b>>6]&(1<<(b&63)) != 0 }

// buildTextIndex indexes the texts of n slots (text(i) is slot i's). Two passes over the texts:
// the first counts each bucket's slots and list bytes, the second writes the lists into one array
// of exactly that size. The buckets scale with n (two to four per slot, 4096 to 1<<20), so a small
// calendar's index is small. A large calendar's slots are split into ranges, one per core, each
// counted and then written by a goroutine of its own into its place in every bucket's list: the
// bytes are those of one pass over all slots.
func buildTextIndex(n int, text func(i int) (head, body string)) *textIndex {
	parts := 1
	if n >= parallelTextIndexMin {
		parts = min(runtime.GOMAXPROCS(0), 4)
	}
	return buildTextIndexParts(n, parts, text)
}

// parallelTextIndexMin is the number of slots from which buildTextIndex splits the work.
const parallelTextIndexMin = 1 << 15

// textIndexPart is one range of slots of a build (buildTextIndexParts), per bucket: the slot+1
// that last and first added to it in the range (0: none), and how many slots and list bytes it
// adds. For the writing pass, last becomes the bucket's last slot+1 in the ranges before (the base
// of the range's first delta; skip for a dense bucket) and cnt the offset where the range writes.
type textIndexPart struct {
	from, to    int
	last, first []int32
	cnt, size   []uint32
}

func buildTextIndexParts(n, parts int, text func(i int) (head, body string)) *textIndex {
	b := min(max(bits.Len(uint(n))+1, 12), 20)
	x := &textIndex{slots: n, shift: uint8(32 - b)}
	nb := 1 << b
	ps := make([]*textIndexPart, parts)
	for p := range ps {
		ps[p] = &textIndexPart{from: n * p / parts, to: n * (p + 1) / parts,
			last: make([]int32, nb), first: make([]int32, nb), cnt: make([]uint32, nb), size: make([]uint32, nb)}
	}
	each := func(fn func(pt *textIndexPart)) {
		var wg sync.WaitGroup
		for _, pt := range ps {
			wg.Go(func() { fn(pt) })
		}
		wg.Wait()
	}
	each(func(pt *textIndexPart) {
		for i := pt.from; i < pt.to; i++ {
			head, body := text(i)
			s1 := int32(i + 1)
			for _, t := range [2]string{head, body} {
				for k := 0; k+2 < len(t); k++ {
					bk := x.bucket(t[k], t[k+1], t[k+2])
					if l := pt.last[bk]; l != s1 {
						pt.size[bk] += uint32(uvarintLen(uint32(s1 - l)))
						if l == 0 {
							pt.first[bk] = s1
						}
						pt.last[bk] = s1
						pt.cnt[bk]++
					}
				}
			}
		}
	})
	limit := uint32(max(n/denseShare, minDense))
	x.off = make([]uint32, nb+1)
	x.dense = make([]uint64, (nb+63)/64)
	total := uint32(0)
	const skip = -1 // last of a dense bucket: never a slot
	for bk := range nb {
		x.off[bk] = total
		count := uint32(0)
		for _, pt := range ps {
			count += pt.cnt[bk]
		}
		if count > limit {
			x.dense[bk>>6] |= 1 << (bk & 63)
			for _, pt := range ps {
				pt.last[bk] = skip
			}
			continue
		}
		prev := int32(0)
		for _, pt := range ps {
			// A range's first delta counts from the bucket's last slot in the ranges before.
			size := pt.size[bk]
			if f := pt.first[bk]; f != 0 && prev != 0 {
				size += uint32(uvarintLen(uint32(f-prev))) - uint32(uvarintLen(uint32(f)))
			}
			pt.cnt[bk] = total // from here on: where the range's next byte goes
			total += size
			last := pt.last[bk]
			pt.last[bk] = prev
			if last != 0 {
				prev = last
			}
		}
	}
	x.off[nb] = total
	x.data = make([]byte, total)
	each(func(pt *textIndexPart) {
		pt.first, pt.size = nil, nil
		for i := pt.from; i < pt.to; i++ {
			head, body := text(i)
			s1 := int32(i + 1)
			for _, t := range [2]string{head, body} {
				for k := 0; k+2 < len(t); k++ {
					bk := x.bucket(t[k], t[k+1], t[k+2])
					if l := pt.last[bk]; l != s1 && l != skip {
						pt.cnt[bk] += uint32(binary.PutUvarint(x.data[pt.cnt[bk]:], uint64(s1-l)))
						pt.last[bk] = s1
					}
				}
			}
		}
	})
	return x
}

func uvarintLen(v uint32) int { return (bits.Len32(v|1) + 6) / 7 }

// size is the index's size in memory.
func (x *textIndex) size() int { return len(x.off)*4 + len(x.dense)*8 + len(x.data) }

// candidates returns the slots that may hold every term, ascending; ok is false when the index
// cannot narrow the search (no term of three bytes or more with a trigram in a bucket that is not
// dense): the caller then tests every event.
func (x *textIndex) candidates(terms []string) (slots []int32, ok bool) {
	type list struct{ from, to uint32 }
	var lists []list
	for _, t := range terms {
		for k := 0; k+2 < len(t); k++ {
			bk := x.bucket(t[k], t[k+1], t[k+2])
			if x.isDense(bk) {
				continue
			}
			l := list{x.off[bk], x.off[bk+1]}
			if l.from == l.to {
				return nil, true // no text holds this trigram
			}
			if !slices.Contains(lists, l) {
				lists = append(lists, l)
			}
		}
	}
	if len(lists) == 0 {
		return nil, false
	}
	// The shortest list first: every later step only removes from it.
	slices.SortFunc(lists, func(a, b list) int { return int(a.to-a.from) - int(b.to-b.from) })
	slots = x.decode(lists[0].from, lists[0].to)
	for _, l := range lists[1:] {
		if len(slots) == 0 {
			break
		}
		slots = x.intersect(slots, l.from, l.to)
	}
	return slots, true
}

// decode reads the list in data[from:to].
func (x *textIndex) decode(from, to uint32) []int32 {
	out := make([]int32, 0, (to-from)/2+1)
	d, s1 := x.data[from:to], int32(0)
	for len(d) > 0 {
		v, n := binary.Uvarint(d)
		d = d[n:]
		s1 += int32(v)
		out = append(out, s1-1)
	}
	return out
}

// intersect keeps the slots (ascending) that the list in data[from:to] holds, in place.
func (x *textIndex) intersect(slots []int32, from, to uint32) []int32 {
	d, s, k, out := x.data[from:to], int32(-1), 0, slots[:0]
	for len(d) > 0 && k < len(slots) {
		v, n := binary.Uvarint(d)
		d = d[n:]
		s += int32(v)
		for k < len(slots) && slots[k] < s {
			k++
		}
		if k < len(slots) && slots[k] == s {
			out = append(out, s)
			k++
		}
	}
	return out
}

// textIndexRef is the text index of one compile's main list, built in the background (a search
// tests every event until it is in) and shared by the snapshots patched from that compile.
type textIndexRef struct {
	x    atomic.Pointer[textIndex]
	done chan struct{}
}

// startTextIndex builds the index of main's texts in the background.
func startTextIndex(main []*Event) *textIndexRef {
	r := &textIndexRef{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.x.Store(buildTextIndex(len(main), func(i int) (string, string) { return main[i].text, main[i].body }))
	}()
	return r
}

// ready is the built index, nil while it is being built.
func (r *textIndexRef) ready() *textIndex {
	if r == nil {
		return nil
	}
	return r.x.Load()
}

// wait blocks until the index is built (tests and benchmarks).
func (r *textIndexRef) wait() {
	if r != nil {
		<-r.done
	}
}

// searchPositions returns the positions in main that may hold every search term not excluded (and
// the SearchAlso events), ascending; ok is false when the text index cannot narrow the search (not
// built yet, or no term it can look up).
func (s *snapshot) searchPositions(q *query) (pos []int32, ok bool) {
	x := s.tix.ready()
	if x == nil {
		return nil, false
	}
	var terms []string
	for _, t := range q.search {
		if !t.exclude {
			terms = append(terms, t.text)
		}
	}
	slots, ok := x.candidates(terms)
	if !ok {
		return nil, false
	}
	pos = slots
	if s.slotPos != nil {
		// slotPos keeps the order of the slots it keeps (a patch moves no kept event past
		// another), so the positions stay ascending.
		pos = make([]int32, 0, len(slots))
		for _, sl := range slots {
			if p := s.slotPos[sl]; p >= 0 {
				pos = append(pos, p)
			}
		}
	}
	extra := slices.Clone(s.unindexed)
	for id := range q.also {
		if e := s.byID[id]; e != nil {
			if p, found := slices.BinarySearchFunc(s.main, e, mainOrder); found && s.main[p] == e {
				extra = append(extra, int32(p))
			}
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		pos = mergeUnion(pos, slices.Compact(extra))
	}
	return pos, true
}

// intersectSorted returns the positions both ascending lists hold.
func intersectSorted(a, b []int32) []int32 {
	if len(a) > len(b) {
		a, b = b, a
	}
	out := make([]int32, 0, len(a))
	for _, v := range a {
		k, found := slices.BinarySearch(b, v)
		if found {
			out = append(out, v)
		}
		b = b[k:]
	}
	return out
}

// patchedText carries the text index into a patched snapshot: the kept slots' new positions
// (remap: old position to new, -1 gone) and the positions of the events the patch added, which the
// index does not cover and every search tests.
func (n *snapshot) patchedText(s *snapshot, remap, addedAt []int32) {
	if s.tix == nil {
		return
	}
	n.tix = s.tix
	n.slotPos = make([]int32, len(s.main))
	if s.slotPos != nil {
		n.slotPos = make([]int32, len(s.slotPos))
	}
	for sl := range n.slotPos {
		p := int32(sl)
		if s.slotPos != nil {
			p = s.slotPos[sl]
		}
		if p >= 0 {
			p = remap[p]
		}
		n.slotPos[sl] = p
	}
	for _, p := range s.unindexed {
		if q := remap[p]; q >= 0 {
			n.unindexed = append(n.unindexed, q)
		}
	}
	n.unindexed = append(n.unindexed, addedAt...)
	slices.Sort(n.unindexed)
}
