package gen

// SetBatchItems makes batches of n items until the returned function restores the size.
func SetBatchItems(n int) (restore func()) {
	old := batchItems
	batchItems = n
	return func() { batchItems = old }
}
