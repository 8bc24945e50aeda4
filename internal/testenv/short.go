package testenv

import "testing"

// SkipIfShort skips t under go test -short, saying what it needs: -short is the fast loop, which
// needs nothing but Go. The helpers here that take a t (SharedMariaDB, and FixtureDB through it;
// NewRedis) call it; tests that start a server or another binary themselves call it first. Without
// -short nothing is skipped: a missing server binary fails the test.
func SkipIfShort(t testing.TB, needs string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("skipped under -short: needs %s", needs)
	}
}
