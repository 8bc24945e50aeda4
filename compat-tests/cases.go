// Package compattests replays the recorded compatibility sets (requests and the reference plugin's
// exact answers) against a real calendard process and compares the answers under the sets' README
// rules.
package compattests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Case is one recorded request and the reference's answer.
type Case struct {
	Name    string `json:"name"`
	Group   string `json:"group"` // "read" or "write"
	Reset   bool   `json:"reset"`
	Now     string `json:"now"`
	Request struct {
		Method  string            `json:"method"`
		Path    string            `json:"path"`
		Query   [][2]string       `json:"query"`
		Auth    *string           `json:"auth"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"request"`
	Response struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"response"`
	DBChanges json.RawMessage `json:"db_changes"`
}

// Meta is a set's meta.json.
type Meta struct {
	RecordedAt     string `json:"recorded_at"`
	SiteURL        string `json:"site_url"`
	TimezoneString string `json:"timezone_string"`
	TablePrefix    string `json:"table_prefix"`
	Users          []struct {
		Login       string `json:"login"`
		Role        string `json:"role"`
		AppPassword string `json:"app_password"`
	} `json:"users"`
}

// Set is a loaded compatibility set.
type Set struct {
	Name    string
	Dir     string
	Meta    Meta
	Cases   []*Case
	Fixture string
}

// LoadSet reads a set directory.
func LoadSet(dir string) (*Set, error) {
	s := &Set{Name: filepath.Base(dir), Dir: dir, Fixture: filepath.Join(dir, "fixture.sql")}
	mb, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(mb, &s.Meta); err != nil {
		return nil, fmt.Errorf("meta.json: %w", err)
	}
	f, err := os.Open(filepath.Join(dir, "cases.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		c := &Case{}
		if err := json.Unmarshal(sc.Bytes(), c); err != nil {
			return nil, fmt.Errorf("cases.jsonl line %d: %w", line, err)
		}
		s.Cases = append(s.Cases, c)
	}
	return s, sc.Err()
}

// AppPassword returns the application password of a recorded user.
func (s *Set) AppPassword(login string) string {
	for _, u := range s.Meta.Users {
		if u.Login == login {
			return u.AppPassword
		}
	}
	return ""
}

// Route returns the REST route a case addresses (from the path or the rest_route parameter).
func (c *Case) Route() string {
	if p, ok := strings.CutPrefix(c.Request.Path, "/wp-json"); ok {
		return p
	}
	for _, kv := range c.Request.Query {
		if kv[0] == "rest_route" {
			return kv[1]
		}
	}
	return c.Request.Path
}

// Resource classifies a case by the first route segment after the namespace.
func (c *Case) Resource() string {
	r := strings.TrimPrefix(c.Route(), "/tribe/events/v1")
	r = strings.Trim(r, "/")
	seg, _, _ := strings.Cut(r, "/")
	switch seg {
	case "":
		return "root"
	case "events", "venues", "organizers", "categories", "tags", "doc":
		return seg
	}
	return "other"
}

// Respell returns the case's path and raw query string (pairs in recorded order) for a namespace
// spelling.
func (c *Case) Respell(ns string) (path, rawQuery string) {
	path = strings.Replace(c.Request.Path, "/tribe/events/v1", "/"+ns, 1)
	parts := make([]string, 0, len(c.Request.Query))
	for _, kv := range c.Request.Query {
		v := kv[1]
		if kv[0] == "rest_route" {
			v = strings.Replace(v, "/tribe/events/v1", "/"+ns, 1)
		}
		parts = append(parts, url.QueryEscape(kv[0])+"="+url.QueryEscape(v))
	}
	return path, strings.Join(parts, "&")
}
