package testenv

import (
	"strings"
	"sync"
)

// SyncBuffer collects what a child process or a server's goroutines write while the test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String is everything written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Count is how many times s has been written (strings.Count of the whole).
func (b *SyncBuffer) Count(s string) int {
	return strings.Count(b.String(), s)
}
