package main

import (
	"errors"
	"path/filepath"
	"testing"
)

// TestImportSinceFlags: a --since that is neither a time nor "last", and a --follow interval under
// a second, are configuration errors naming the flag, before anything is opened.
func TestImportSinceFlags(t *testing.T) {
	db := "sqlite://" + filepath.Join(t.TempDir(), "never.db")
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--since", "yesterday"}, "--since"},
		{[]string{"--since", "2026-01-02 15:04:05"}, "--since"},
		{[]string{"--follow", "--interval", "10ms"}, "--interval"},
	} {
		args := append([]string{"--from", "http://127.0.0.1:1", "--to", db}, c.args...)
		err := importCalendar(args)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Var != c.flag {
			t.Errorf("import %v: %v, want a configuration error of %s", c.args, err, c.flag)
		}
	}
}
