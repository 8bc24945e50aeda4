package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The configuration reference is checked against the code: every variable calendard reads is in
// docs/configuration.md with its default, and the page names no variable calendard does not read.
func TestConfigurationDocsListEverySetting(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{} // variable → its default cell
	row := regexp.MustCompile("(?m)^\\| `(CALENDAR_[A-Z0-9_]+)` \\| ([^|]*) \\|")
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		rows[m[1]] = strings.TrimSpace(m[2])
	}
	known := map[string]bool{"CALENDAR_DEBUG_ADDR": true} // read by the diagnostics listener itself (debug.go)
	for _, s := range settings {
		known[s.env] = true
		cell, ok := rows[s.env]
		switch {
		case !ok:
			t.Errorf("%s is missing from docs/configuration.md", s.env)
		case s.def != "" && !strings.Contains(cell, "`"+s.def+"`"):
			t.Errorf("%s: the docs give the default %s, the code %q", s.env, cell, s.def)
		}
	}
	for env := range rows {
		if !known[env] {
			t.Errorf("docs/configuration.md lists %s, which calendard does not read", env)
		}
	}
}
