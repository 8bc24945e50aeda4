package php

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// testdata/filter_validate_url.jsonl holds [input, filter_var(input, FILTER_VALIDATE_URL) !== false]
// pairs recorded from PHP 8.2.
func TestFilterValidateURLMatchesPHP(t *testing.T) {
	f, err := os.Open("testdata/filter_validate_url.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var row []any
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		in, want := row[0].(string), row[1].(bool)
		n++
		t.Run(in, func(t *testing.T) {
			if got := FilterValidateURL(in); got != want {
				t.Errorf("FilterValidateURL(%q) = %v, PHP says %v", in, got, want)
			}
		})
	}
	if n < 50 {
		t.Fatalf("only %d vectors", n)
	}
}
