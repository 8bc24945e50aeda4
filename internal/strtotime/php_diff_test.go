//go:build phpdiff

// The PHP differential tests need a php binary, which CI does not have, so they are behind the
// "phpdiff" build tag instead of skipping in every normal run:
//
//	go test -tags phpdiff ./internal/strtotime/ -run PHPDifferential -v

package strtotime

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPHPDifferential compares Parse with a real PHP 8.2 on thousands of
// generated strings (STRTOTIME_PHP may name the php binary; "php" on PATH by
// default). It is how the tables in strtotime_test.go were checked.
func TestPHPDifferential(t *testing.T) {
	phpBin := os.Getenv("STRTOTIME_PHP")
	if phpBin == "" {
		phpBin = "1"
	}
	if phpBin == "1" {
		phpBin = "php"
	}
	n := 20000
	if v := os.Getenv("STRTOTIME_PHP_N"); v != "" {
		fmt.Sscan(v, &n)
	}
	seed := int64(1)
	if v := os.Getenv("STRTOTIME_PHP_SEED"); v != "" {
		fmt.Sscan(v, &seed)
	}
	inputs := append([]string{}, diffCorpus...)
	for _, c := range parseCases {
		inputs = append(inputs, c.in)
	}
	inputs = append(inputs, generateInputs(rand.New(rand.NewSource(seed)), n)...)
	if extra := os.Getenv("STRTOTIME_PHP_INPUTS"); extra != "" {
		inputs = strings.Split(extra, "\n")
	}
	if v := os.Getenv("STRTOTIME_PHP_BASES"); v != "" {
		// e.g. DST edges: 1805005800,1825487400,1825491000 (01:30 New York)
		saved := diffBases
		defer func() { diffBases = saved }()
		diffBases = nil
		for _, f := range strings.Split(v, ",") {
			var b int64
			fmt.Sscan(f, &b)
			diffBases = append(diffBases, b)
		}
	}
	if v := os.Getenv("STRTOTIME_PHP_ZONES"); v != "" {
		saved := diffZones
		defer func() { diffZones = saved }()
		diffZones = strings.Split(v, ",")
	}
	results := runPHP(t, phpBin, inputs)

	mismatches := 0
	for k, in := range inputs {
		want := results[k]
		got := goResults(in)
		if len(got.R) == len(want.R) {
			for k := range got.R {
				// PHP prints dates in year 0 and before a day off (its
				// unixtime2gmt disagrees with the proleptic calendar there);
				// for those only the timestamps are compared.
				if g, w := strings.Fields(got.R[k]), strings.Fields(want.R[k]); len(g) > 1 && len(w) > 1 && g[0] == w[0] &&
					(strings.HasPrefix(w[1], "0000-") || strings.HasPrefix(w[1], "-")) {
					got.R[k] = want.R[k]
				}
				// Beyond year 9999 Go and timelib extrapolate DST rules
				// differently; such dates are out of scope.
				if w := strings.Fields(want.R[k]); len(w) > 1 && len(w[1]) > 10 {
					got.R[k] = want.R[k]
				}
			}
		}
		if fmt.Sprint(got.R) != fmt.Sprint(want.R) || (want.P != "" && got.P != want.P) {
			mismatches++
			if mismatches <= 60 {
				t.Errorf("%q:\n php: %v %s\n  go: %v %s", in, want.R, want.P, got.R, got.P)
			}
		}
	}
	accepted := 0
	for _, r := range results {
		if r.R[0] != "false" {
			accepted++
		}
	}
	t.Logf("%d inputs (%d accepted by PHP), %d mismatches", len(inputs), accepted, mismatches)
}

// Bases and zones the differential test evaluates every input against.
var (
	diffBases = []int64{1795321765, 1805007600, 1806800400, 1801396800} // 2026-11-22 04:29:25, 2027-03-14 07:00, 2027-04-04 01:00, 2027-01-31 12:00 UTC
	diffZones = []string{"UTC", "America/New_York", "Australia/Adelaide"}
)

type diffResult struct {
	R []string `json:"r"`
	P string   `json:"p"`
}

func goResults(in string) diffResult {
	var out diffResult
	for _, b := range diffBases {
		for _, z := range diffZones {
			loc, err := time.LoadLocation(z)
			if err != nil {
				panic(err)
			}
			r, err := Parse(in, time.Unix(b, 0), loc)
			if err != nil {
				out.R = append(out.R, "false")
				continue
			}
			out.R = append(out.R, fmt.Sprintf("%d %s", r.Unix(), r.Format("2006-01-02 15:04:05 -07:00")))
		}
	}
	if p, err := parseString(in); err == nil {
		out.P = summary(&p.t)
	}
	return out
}

// summary renders the parsed fields the way the PHP script renders date_parse().
func summary(t *ptime) string {
	f := func(v int64) string {
		if v == unset {
			return "-"
		}
		return fmt.Sprint(v)
	}
	s := fmt.Sprintf("%s %s %s %s %s %s %s|", f(t.y), f(t.m), f(t.d), f(t.h), f(t.i), f(t.s), f(t.us))
	switch t.zoneType {
	case zoneOffset, zoneAbbr:
		dst := 0
		if t.dst != 0 {
			dst = 1
		}
		s += fmt.Sprintf("%d %s %d", t.zoneType, f(t.z), dst)
	case zoneID:
		s += "3"
	}
	s += "|"
	if t.haveRelative {
		r := &t.rel
		s += fmt.Sprintf("%d %d %d %d %d %d", r.y, r.m, r.d, r.h, r.i, r.s)
		if r.haveWeekdayRelative {
			s += fmt.Sprintf(" w%d", r.weekday)
		}
		if r.haveSpecialRelative && r.specialType == specialWeekday {
			s += fmt.Sprintf(" wd%d", r.specialAmount)
		}
		switch r.firstLastDayOf {
		case specialFirstDayOfMonth:
			s += " fdom"
		case specialLastDayOfMonth:
			s += " ldom"
		}
	}
	return s
}

const phpScript = `<?php
$bases = json_decode($argv[1]);
$zones = json_decode($argv[2]);
$in = fopen($argv[3], 'r');
while (($line = fgets($in)) !== false) {
	$s = hex2bin(trim($line));
	$r = [];
	foreach ($bases as $base) {
		foreach ($zones as $z) {
			date_default_timezone_set($z);
			$ts = strtotime($s, $base);
			if ($ts === false) { $r[] = "false"; continue; }
			$p = date_parse($s);
			$tz = new DateTimeZone($z);
			if (!empty($p['is_localtime'])) {
				if ($p['zone_type'] == 1 || $p['zone_type'] == 2) {
					$off = $p['zone'] + ($p['zone_type'] == 2 && $p['is_dst'] ? 3600 : 0);
					$a = abs($off);
					$r[] = $ts . " " . gmdate('Y-m-d H:i:s', $ts + $off) . sprintf(' %s%02d:%02d', $off < 0 ? '-' : '+', intdiv($a, 3600), intdiv($a, 60) % 60);
					continue;
				} elseif ($p['zone_type'] == 3) {
					$tz = new DateTimeZone($p['tz_id']);
				}
			}
			$d = new DateTime("@$ts");
			$d->setTimezone($tz);
			$r[] = $ts . " " . $d->format('Y-m-d H:i:s P');
		}
	}
	$p = date_parse($s);
	$sum = "";
	if ($p['error_count'] == 0) {
		$f = function ($v) { return $v === false ? "-" : (string)$v; };
		$us = $p['fraction'] === false ? "-" : (string)(int)round($p['fraction'] * 1000000);
		$sum = sprintf("%s %s %s %s %s %s %s|", $f($p['year']), $f($p['month']), $f($p['day']), $f($p['hour']), $f($p['minute']), $f($p['second']), $us);
		if (!empty($p['is_localtime'])) {
			if ($p['zone_type'] == 1 || $p['zone_type'] == 2) {
				$sum .= sprintf("%d %d %d", $p['zone_type'], $p['zone'], $p['is_dst'] ? 1 : 0);
			} else {
				$sum .= $p['zone_type'];
			}
		}
		$sum .= "|";
		if (isset($p['relative'])) {
			$rel = $p['relative'];
			$sum .= sprintf("%d %d %d %d %d %d", $rel['year'], $rel['month'], $rel['day'], $rel['hour'], $rel['minute'], $rel['second']);
			if (isset($rel['weekday'])) $sum .= " w" . $rel['weekday'];
			if (isset($rel['weekdays'])) $sum .= " wd" . $rel['weekdays'];
			if (isset($rel['first_day_of_month'])) $sum .= " fdom";
			if (isset($rel['last_day_of_month'])) $sum .= " ldom";
		}
	}
	echo json_encode(["r" => $r, "p" => $sum], JSON_INVALID_UTF8_SUBSTITUTE), "\n";
}
`

func runPHP(t *testing.T, phpBin string, inputs []string) []diffResult {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "diff.php")
	if err := os.WriteFile(script, []byte(phpScript), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, in := range inputs {
		buf.WriteString(hex.EncodeToString([]byte(in)))
		buf.WriteByte('\n')
	}
	inFile := filepath.Join(dir, "inputs.jsonl")
	if err := os.WriteFile(inFile, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	bases, _ := json.Marshal(diffBases)
	zones, _ := json.Marshal(diffZones)
	cmd := exec.Command(phpBin, script, string(bases), string(zones), inFile)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("php: %v", err)
	}
	var res []diffResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r diffResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("bad php output %q: %v", sc.Text(), err)
		}
		res = append(res, r)
	}
	if len(res) != len(inputs) {
		t.Fatalf("php returned %d results for %d inputs", len(res), len(inputs))
	}
	return res
}

// TestPHPDifferentialTimezone compares ParseTimezone with PHP's
// new DateTimeZone() (opt-in like TestPHPDifferential).
func TestPHPDifferentialTimezone(t *testing.T) {
	phpBin := os.Getenv("STRTOTIME_PHP")
	if phpBin == "" {
		phpBin = "1"
	}
	if phpBin == "1" {
		phpBin = "php"
	}
	var inputs []string
	for _, id := range strings.Fields(zoneIDs) {
		inputs = append(inputs, id, strings.ToLower(id), strings.ToUpper(id))
	}
	for abbr := range abbrTable {
		inputs = append(inputs, abbr, strings.ToUpper(abbr), "("+abbr+")", " "+abbr, abbr+")", abbr+" ")
	}
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		if r.Intn(3) == 0 {
			b.WriteString([]string{"GMT", "UTC", "(", " ", "\t", "Z", "utc"}[r.Intn(7)])
		}
		b.WriteString([]string{"+", "-", "", "+-", "--"}[r.Intn(5)])
		for k := r.Intn(9); k > 0; k-- {
			b.WriteString([]string{"0", "1", "2", "5", "9", ":", "3", "4"}[r.Intn(8)])
		}
		if r.Intn(4) == 0 {
			b.WriteString([]string{")", " ", "x", "/", "))"}[r.Intn(5)])
		}
		inputs = append(inputs, b.String())
	}
	inputs = append(inputs, "", "UTC", "utc", "Utc", "GMT", "Z", "z", "J", "garbage", "America/New_York,",
		"Europe/Kyiv", "US/Eastern", "EST5EDT", "Etc/GMT+5", "Etc/GMT-14", "+99", "+100", "+12345", "-99:59",
		"+2", "-0530", "+05:30", "GMT+5", "GMT-05:00", "(EST)", "EST)", " EST", "Factory",
		"leapseconds", "tzdata.zi", "America/New_York ")
	// Not compared: "posixrules", "localtime", "right/UTC", "America//New_York".
	// Debian's PHP (system tzdata) resolves any file under /usr/share/zoneinfo;
	// upstream PHP's bundled database, like ParseTimezone, rejects them.
	dir := t.TempDir()
	script := filepath.Join(dir, "tz.php")
	os.WriteFile(script, []byte(`<?php
$in = fopen($argv[1], 'r');
while (($line = fgets($in)) !== false) {
	$s = hex2bin(trim($line));
	try {
		$z = new DateTimeZone($s);
		$j = json_decode(json_encode($z), true);
		$a = (new DateTime('@1798761600'))->setTimezone($z)->getOffset();
		$b = (new DateTime('@1814400000'))->setTimezone($z)->getOffset();
		echo $j['timezone_type'] == 3 ? "3" : $j['timezone_type'] . ' ' . $z->getName(), " $a $b\n";
	} catch (Exception $e) {
		echo "error\n";
	}
}
`), 0o644)
	var buf bytes.Buffer
	for _, in := range inputs {
		buf.WriteString(hex.EncodeToString([]byte(in)) + "\n")
	}
	inFile := filepath.Join(dir, "in")
	os.WriteFile(inFile, buf.Bytes(), 0o644)
	out, err := exec.Command(phpBin, script, inFile).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(inputs) {
		t.Fatalf("php gave %d lines for %d inputs", len(lines), len(inputs))
	}
	bad := 0
	for k, in := range inputs {
		got := "error"
		if loc, err := ParseTimezone(in); err == nil {
			_, a := time.Unix(1798761600, 0).In(loc).Zone()
			_, b := time.Unix(1814400000, 0).In(loc).Zone()
			kind := "3"
			if r := parseZone(&cursor{s: in}); r.zoneType != zoneID {
				kind = fmt.Sprintf("%d %s", r.zoneType, loc.String())
			}
			got = fmt.Sprintf("%s %d %d", kind, a, b)
		}
		if got != lines[k] {
			bad++
			if bad < 40 {
				t.Errorf("%q: php %q, go %q", in, lines[k], got)
			}
		}
	}
	t.Logf("%d inputs, %d mismatches", len(inputs), bad)
}
