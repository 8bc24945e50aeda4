package wpdb

import "github.com/calendard/calendard/internal/collation"

// MariaDB's filesort, reproduced for the SQLite store.
//
// When MariaDB cannot read rows in ORDER BY order from an index, it sorts them with its filesort, and
// rows whose sort keys are equal come out in an order that depends on nothing but the algorithm: the
// rows are read in the plan's order, a LIMIT keeps the best offset+count of them in a bounded
// priority queue (whose replacements shuffle the slots equal keys sit in), and the kept rows are
// sorted with my_qsort2, a quicksort that reverses runs of equal keys. WordPress clients see that
// order (e.g. a venue list where every venue has the same publication second), so the SQLite store
// runs the same algorithm over the rows in the order MariaDB reads them.
//
// This is MariaDB 10.x's code path for a sort whose rows carry their selected columns ("addon
// fields", no BLOB among them): Bounded_queue over mysys/queues.c with the biggest key on top and
// one spare slot, then Filesort_buffer::sort_buffer's my_qsort2 (mysys/mf_qsort.c). The priority
// queue is MariaDB's choice whenever a LIMIT is small next to InnoDB's row estimate, which for
// WordPress tables (many times their row count) means whenever there is a LIMIT. Sorts of row
// references instead (a BLOB column is read, or a temporary table is sorted) compare the reference
// after the key, which gives a total order: those need no emulation (see refOrder).

// filesortRow is one row read for a filesort: the ID the statement selects, its sort key, and
// whether the statement keeps it after the sort (see filesortPage).
type filesortRow struct {
	id   int64
	key  any // int64 or string
	keep bool
}

// filesortKey says how MariaDB compares the sort keys of one ORDER BY column.
type filesortKey struct {
	text bool // compared under the tables' collation (otherwise: integers, or dates as stored text)
	desc bool
}

// compare orders two keys as MariaDB's sort keys compare (memcmp of the key images).
func (k filesortKey) compare(a, b *filesortRow) int {
	var c int
	switch x := a.key.(type) {
	case int64:
		y, _ := b.key.(int64)
		switch {
		case x < y:
			c = -1
		case x > y:
			c = 1
		}
	case string:
		y, _ := b.key.(string)
		if k.text {
			c = collation.Compare(x, y)
		} else {
			c = compareBytes(x, y)
		}
	}
	if k.desc {
		return -c
	}
	return c
}

func compareBytes(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// mariadbFilesort returns rows (given in the order MariaDB reads them) in the order MariaDB's filesort
// puts them: the first maxRows rows of a statement with LIMIT offset+count = maxRows, or every row
// when maxRows < 0 (no LIMIT).
func mariadbFilesort(rows []filesortRow, key filesortKey, maxRows int) []filesortRow {
	if maxRows == 0 {
		return nil
	}
	var buf []filesortRow
	if maxRows < 0 {
		buf = append([]filesortRow(nil), rows...)
	} else {
		buf = boundedQueue(rows, key, maxRows)
	}
	myQsort(buf, key)
	if maxRows >= 0 && len(buf) > maxRows {
		buf = buf[:maxRows]
	}
	return buf
}

// boundedQueue is Bounded_queue::push for every row: a heap of maxRows+1 slots with the biggest key on
// top; once full, each new row overwrites the top slot, which then sinks (queue_replace_top). It
// returns the slots in slot order, as the sort buffer holds them.
func boundedQueue(rows []filesortRow, key filesortKey, maxRows int) []filesortRow {
	capacity := maxRows + 1
	if capacity > len(rows) {
		capacity = len(rows)
	}
	slots := make([]filesortRow, 0, capacity)
	heap := make([]int, 1, capacity+1) // 1-based positions holding slot numbers, like QUEUE.root
	for _, r := range rows {
		if len(slots) == maxRows+1 {
			slots[heap[1]] = r
			downheap(heap, slots, key)
			continue
		}
		slots = append(slots, r)
		heap = append(heap, len(slots)-1)
		upheap(heap, slots, key)
	}
	return slots
}

// upheap is queues.c insert_at for the element just appended (max_at_top: bigger keys rise).
func upheap(heap []int, slots []filesortRow, key filesortKey) {
	idx := len(heap) - 1
	elem := heap[idx]
	for next := idx >> 1; next > 0 && key.compare(&slots[elem], &slots[heap[next]]) > 0; next = idx >> 1 {
		heap[idx] = heap[next]
		idx = next
	}
	heap[idx] = elem
}

// downheap is queues.c _downheap(queue, 1) with max_at_top: the top sinks below every bigger child.
func downheap(heap []int, slots []filesortRow, key filesortKey) {
	elements := len(heap) - 1
	half := elements >> 1
	idx := 1
	elem := heap[idx]
	for idx <= half {
		next := idx + idx
		if next < elements && key.compare(&slots[heap[next]], &slots[heap[next+1]]) < 0 {
			next++
		}
		if key.compare(&slots[heap[next]], &slots[elem]) <= 0 {
			break
		}
		heap[idx] = heap[next]
		idx = next
	}
	heap[idx] = elem
}

// myQsort is mysys my_qsort2: an explicit-stack quicksort with median-of-three (of nine above 40
// elements) pivots, insertion sort below 10 elements, and a partition that swaps keys equal to the
// pivot.
func myQsort(a []filesortRow, key filesortKey) {
	if len(a) <= 1 {
		return
	}
	cmp := func(i, j int) int { return key.compare(&a[i], &a[j]) }
	swap := func(i, j int) { a[i], a[j] = a[j], a[i] }
	median := func(low, mid, high int) {
		if cmp(high, low) < 0 {
			swap(high, low)
		}
		if cmp(mid, low) < 0 {
			swap(mid, low)
		} else if cmp(high, mid) < 0 {
			swap(mid, high)
		}
	}
	type span struct{ low, high int }
	var stack []span
	low, high := 0, len(a)-1
	for {
		count := high - low + 1
		if count < 10 {
			for lp := low + 1; lp <= high; lp++ {
				for p := lp; p > low && cmp(p-1, p) > 0; p-- {
					swap(p, p-1)
				}
			}
			if len(stack) == 0 {
				return
			}
			low, high = stack[len(stack)-1].low, stack[len(stack)-1].high
			stack = stack[:len(stack)-1]
			continue
		}
		mid := low + count>>1
		var lp, hp int
		if count > 40 {
			step := count / 8
			median(low, low+step, low+step*2)
			median(mid-step, mid, mid+step)
			median(high-2*step, high-step, high)
			median(low+step, mid, high-step)
			lp, hp = low, high
		} else {
			median(low, mid, high)
			lp, hp = low+1, high-1
		}
		pivot := a[mid]
		for {
			for key.compare(&a[lp], &pivot) < 0 {
				lp++
			}
			for key.compare(&pivot, &a[hp]) < 0 {
				hp--
			}
			if lp < hp {
				swap(lp, hp)
				lp++
				hp--
			} else {
				if lp == hp {
					lp++
					hp--
				}
				break
			}
			if lp > hp {
				break
			}
		}
		switch {
		case hp-low <= 0:
			if high-lp <= 0 {
				if len(stack) == 0 {
					return
				}
				low, high = stack[len(stack)-1].low, stack[len(stack)-1].high
				stack = stack[:len(stack)-1]
			} else {
				low = lp
			}
		case high-lp <= 0:
			high = hp
		case hp-low > high-lp:
			stack = append(stack, span{low, hp})
			low = lp
		default:
			stack = append(stack, span{lp, high})
			high = hp
		}
	}
}
