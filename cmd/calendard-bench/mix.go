package main

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// mixLine is one request kind of the mix file.
type mixLine struct {
	Name      string
	Template  string // path and query with {placeholders}
	MinEvents int    // run only on calendars of at least this many events
}

// readMix reads a mix file: "name path [min-events=N]" per line, # comments.
func readMix(path string) ([]mixLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseMix(f)
}

func parseMix(r io.Reader) ([]mixLine, error) {
	var out []mixLine
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(f[1], "/") {
			return nil, fmt.Errorf("mix line %d: want \"name /path [min-events=N]\": %q", n, line)
		}
		l := mixLine{Name: f[0], Template: f[1]}
		for _, opt := range f[2:] {
			v, ok := strings.CutPrefix(opt, "min-events=")
			if !ok {
				return nil, fmt.Errorf("mix line %d: unknown option %q", n, opt)
			}
			var err error
			if l.MinEvents, err = strconv.Atoi(v); err != nil {
				return nil, fmt.Errorf("mix line %d: %v", n, err)
			}
		}
		if seen[l.Name] {
			return nil, fmt.Errorf("mix line %d: name %q used twice", n, l.Name)
		}
		seen[l.Name] = true
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the mix has no lines")
	}
	return out, nil
}

var placeholder = regexp.MustCompile(`\{([a-z_]+)\}`)

// expand fills a line's placeholders: path-escaped before the query, query-escaped in it.
func (l mixLine) expand(picks map[string]string) (string, error) {
	q := strings.IndexByte(l.Template, '?')
	var b strings.Builder
	var missing []string
	last := 0
	for _, loc := range placeholder.FindAllStringSubmatchIndex(l.Template, -1) {
		b.WriteString(l.Template[last:loc[0]])
		key := l.Template[loc[2]:loc[3]]
		v := picks[key]
		switch {
		case v == "":
			missing = append(missing, key)
		case q >= 0 && loc[0] > q:
			b.WriteString(url.QueryEscape(v))
		default:
			b.WriteString(url.PathEscape(v))
		}
		last = loc[1]
	}
	b.WriteString(l.Template[last:])
	if len(missing) > 0 {
		return "", fmt.Errorf("mix line %s: no value for %s", l.Name, strings.Join(missing, ", "))
	}
	return b.String(), nil
}

// mixFor returns the lines that run on a calendar of n events, expanded.
func mixFor(lines []mixLine, events int, picks map[string]string) ([]mixLine, []string, error) {
	var use []mixLine
	var urls []string
	for _, l := range lines {
		if events < l.MinEvents {
			continue
		}
		u, err := l.expand(picks)
		if err != nil {
			return nil, nil, err
		}
		use = append(use, l)
		urls = append(urls, u)
	}
	return use, urls, nil
}
