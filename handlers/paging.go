package handlers

import "math"

// MaxRowOffset bounds the row offset of a list page. (page-1)*per_page saturates here instead of
// overflowing: no table holds that many rows, so such a page lies past the end on every store, and
// an offset plus any page size still fits an int.
const MaxRowOffset = math.MaxInt64 / 4

// RowsBefore is the offset of a page, (page-1)*perPage, saturated at maxRowOffset. page may be any
// int64 a client sent (PHP saturates numeric strings at PHP_INT_MAX); page+1 of the largest one
// wraps to a negative value, which must not count as page 1, so it saturates too.
func RowsBefore(page, perPage int64) int {
	if perPage <= 0 || page == 1 {
		return 0
	}
	if page < 1 || page-1 > MaxRowOffset/perPage {
		return MaxRowOffset
	}
	return int((page - 1) * perPage)
}

// QueryOffset is the row offset WP_Query and WP_Term_Query read from an offset parameter: absint
// of it, saturated at maxRowOffset. absint(PHP_INT_MIN) is a float, which those queries write into
// their LIMIT as "9.2233720368547758E+18": an SQL error, hence no rows, which maxRowOffset gives too.
func QueryOffset(n int64) int {
	if n == math.MinInt64 {
		return MaxRowOffset
	}
	if n < 0 {
		n = -n
	}
	return int(min(n, MaxRowOffset))
}
