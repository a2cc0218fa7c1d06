package datfetch

import (
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// The README's numbers for the HTTP source are its defaults: "a server
// silent for 15 s is given up on", "the 32 MiB record cap", "an 80 MiB
// budget"; and a source made with no options takes them.
func TestReadmeHTTPNumbers(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	num := func(pattern string) int64 {
		t.Helper()
		m := regexp.MustCompile(pattern).FindSubmatch(readme)
		if m == nil {
			t.Fatalf("README.md no longer says %s", pattern)
		}
		n, _ := strconv.ParseInt(string(m[1]), 10, 64)
		return n
	}
	if s := num(`a server silent for (\d+) s\s+is given up on`); time.Duration(s)*time.Second != DefaultIdleTimeout {
		t.Errorf("README: silent for %d s; DefaultIdleTimeout %v", s, DefaultIdleTimeout)
	}
	if m := num(`A body over the (\d+) MiB record cap is refused`); m<<20 != DefaultMaxRecordBytes {
		t.Errorf("README: a %d MiB record cap; DefaultMaxRecordBytes %d", m, DefaultMaxRecordBytes)
	}
	if m := num(`the answers under way share an (\d+) MiB\s+budget`); m<<20 != DefaultInFlightBytes {
		t.Errorf("README: an %d MiB budget; DefaultInFlightBytes %d", m, DefaultInFlightBytes)
	}
	h := NewHTTP("http://unused/", HTTPOptions{})
	if h.idle != DefaultIdleTimeout || h.maxRec != DefaultMaxRecordBytes || h.budget != defaultBodyBudget() || h.budget.max != DefaultInFlightBytes {
		t.Errorf("a source with no options: idle %v, cap %d, budget %p of %d; want the defaults", h.idle, h.maxRec, h.budget, h.budget.max)
	}
}
