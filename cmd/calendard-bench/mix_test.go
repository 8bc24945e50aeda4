package main

import (
	"strings"
	"testing"
	"time"
)

// The repository's mix parses, has the request kinds the benchmark reports, and expands with a
// generator's picks; placeholders are escaped for where they stand.
func TestRepositoryMix(t *testing.T) {
	lines, err := readMix("../../bench/mix.txt")
	if err != nil {
		t.Fatal(err)
	}
	picks := map[string]string{"event_id": "42", "event_slug": "spring-jazz-night", "venue_id": "7", "organizer_id": "8",
		"category_slug": "music", "tag_slug": "outdoor", "search": "masterclass", "month_start": "2026-12-01",
		"month_end": "2026-12-31 23:59:59", "week_start": "2026-11-30", "week_end": "2026-12-06 23:59:59",
		"past_start": "2025-11-25", "past_end": "2026-11-25"}
	small, urls, err := mixFor(lines, 10000, picks)
	if err != nil {
		t.Fatal(err)
	}
	big, _, err := mixFor(lines, 100000, picks)
	if err != nil {
		t.Fatal(err)
	}
	tiny, _, err := mixFor(lines, 2000, picks)
	if err != nil {
		t.Fatal(err)
	}
	if len(small) != 21 || len(big) != 22 || len(tiny) != 20 {
		t.Errorf("%d lines at 2k, %d at 10k and %d at 100k, want 20, 21 and 22", len(tiny), len(small), len(big))
	}
	all := strings.Join(urls, "\n")
	for _, want := range []string{"/events?per_page=50", "/events?page=400", "end_date=2026-12-31+23%3A59%3A59",
		"/events/42", "/events/by-slug/spring-jazz-night", "venue=7", "organizer=8", "featured=true", "search=masterclass",
		"categories=music", "tags=outdoor", "/venues", "/organizers", "/categories", "/tags"} {
		if !strings.Contains(all, want) {
			t.Errorf("no request with %q in\n%s", want, all)
		}
	}
	if strings.Contains(all, "{") {
		t.Errorf("unexpanded placeholder in\n%s", all)
	}
	delete(picks, "venue_id")
	if _, _, err := mixFor(lines, 10000, picks); err == nil || !strings.Contains(err.Error(), "venue_id") {
		t.Errorf("a missing pick: %v", err)
	}
}

func TestParseMixErrors(t *testing.T) {
	for _, bad := range []string{"", "# only a comment\n", "list events\n", "a /x\na /y\n", "a /x min-events=x\n", "a /x other=1\n"} {
		if _, err := parseMix(strings.NewReader(bad)); err == nil {
			t.Errorf("parseMix(%q) accepted", bad)
		}
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	for p, want := range map[float64]time.Duration{0.5: 50 * time.Millisecond, 0.95: 95 * time.Millisecond, 0.99: 99 * time.Millisecond} {
		if got := percentile(d, p); got != want {
			t.Errorf("p%.0f = %s, want %s", p*100, got, want)
		}
	}
	if percentile(nil, 0.5) != 0 || percentile(d[:1], 0.99) != time.Millisecond {
		t.Error("percentile of short lists")
	}
}

func TestIsError(t *testing.T) {
	for status, want := range map[int]bool{0: true, 200: false, 301: false, 400: true, 404: false, 500: true, 503: true} {
		if isError(status) != want {
			t.Errorf("isError(%d) = %v", status, !want)
		}
	}
}
