package cost

// zendSort is PHP's zend_sort(): insertion sort up to 16 elements (with
// fixed networks for 2 to 5), quicksort above. PHP's key comparison is not
// transitive across int and string keys (10 < "5-5" < 9 < 10), so only the
// exact algorithm reproduces ksort()'s order on such keys. cmp must already
// be stable (ties broken by original position), as PHP's sort wrappers are.
// Every loop is bounded by indices, so an inconsistent cmp cannot run away.
func zendSort[T any](a []T, cmp func(x, y T) int) {
	for {
		n := len(a)
		if n <= 16 {
			zendInsertSort(a, cmp)
			return
		}
		end := n
		offset := n >> 1
		pivot := offset
		if n>>10 != 0 {
			delta := offset >> 1
			zendSort5(a, 0, delta, pivot, pivot+delta, end-1, cmp)
		} else {
			zendSort3(a, 0, pivot, end-1, cmp)
		}
		a[1], a[pivot] = a[pivot], a[1]
		pivot = 1
		i, j := pivot+1, end-1
	partition:
		for {
			for cmp(a[pivot], a[i]) > 0 {
				i++
				if i == j {
					break partition
				}
			}
			j--
			if j == i {
				break partition
			}
			for cmp(a[j], a[pivot]) > 0 {
				j--
				if j == i {
					break partition
				}
			}
			a[i], a[j] = a[j], a[i]
			i++
			if i == j {
				break partition
			}
		}
		a[pivot], a[i-1] = a[i-1], a[pivot]
		if i-1 < end-i {
			zendSort(a[:i-1], cmp)
			a = a[i:end]
		} else {
			zendSort(a[i:end], cmp)
			a = a[:i-1]
		}
	}
}

func zendSort2[T any](a []T, x, y int, cmp func(x, y T) int) {
	if cmp(a[x], a[y]) > 0 {
		a[x], a[y] = a[y], a[x]
	}
}

func zendSort3[T any](a []T, x, y, z int, cmp func(x, y T) int) {
	if !(cmp(a[x], a[y]) > 0) {
		if !(cmp(a[y], a[z]) > 0) {
			return
		}
		a[y], a[z] = a[z], a[y]
		if cmp(a[x], a[y]) > 0 {
			a[x], a[y] = a[y], a[x]
		}
		return
	}
	if !(cmp(a[z], a[y]) > 0) {
		a[x], a[z] = a[z], a[x]
		return
	}
	a[x], a[y] = a[y], a[x]
	if cmp(a[y], a[z]) > 0 {
		a[y], a[z] = a[z], a[y]
	}
}

func zendSort4[T any](a []T, x, y, z, w int, cmp func(x, y T) int) {
	zendSort3(a, x, y, z, cmp)
	if cmp(a[z], a[w]) > 0 {
		a[z], a[w] = a[w], a[z]
		if cmp(a[y], a[z]) > 0 {
			a[y], a[z] = a[z], a[y]
			if cmp(a[x], a[y]) > 0 {
				a[x], a[y] = a[y], a[x]
			}
		}
	}
}

func zendSort5[T any](a []T, x, y, z, w, v int, cmp func(x, y T) int) {
	zendSort4(a, x, y, z, w, cmp)
	if cmp(a[w], a[v]) > 0 {
		a[w], a[v] = a[v], a[w]
		if cmp(a[z], a[w]) > 0 {
			a[z], a[w] = a[w], a[z]
			if cmp(a[y], a[z]) > 0 {
				a[y], a[z] = a[z], a[y]
				if cmp(a[x], a[y]) > 0 {
					a[x], a[y] = a[y], a[x]
				}
			}
		}
	}
}

func zendInsertSort[T any](a []T, cmp func(x, y T) int) {
	n := len(a)
	switch n {
	case 0, 1:
		return
	case 2:
		zendSort2(a, 0, 1, cmp)
		return
	case 3:
		zendSort3(a, 0, 1, 2, cmp)
		return
	case 4:
		zendSort4(a, 0, 1, 2, 3, cmp)
		return
	case 5:
		zendSort5(a, 0, 1, 2, 3, 4, cmp)
		return
	}
	shift := func(i, j int) { // move a[i] down to position j
		for k := i; k > j; k-- {
			a[k], a[k-1] = a[k-1], a[k]
		}
	}
	sentry := 6
	for i := 1; i < sentry; i++ {
		j := i - 1
		if !(cmp(a[j], a[i]) > 0) {
			continue
		}
		for j != 0 {
			j--
			if !(cmp(a[j], a[i]) > 0) {
				j++
				break
			}
		}
		shift(i, j)
	}
	for i := sentry; i < n; i++ {
		j := i - 1
		if !(cmp(a[j], a[i]) > 0) {
			continue
		}
		for {
			j -= 2
			if !(cmp(a[j], a[i]) > 0) {
				j++
				if !(cmp(a[j], a[i]) > 0) {
					j++
				}
				break
			}
			if j == 0 {
				break
			}
			if j == 1 {
				j--
				if cmp(a[i], a[j]) > 0 {
					j++
				}
				break
			}
		}
		shift(i, j)
	}
}
