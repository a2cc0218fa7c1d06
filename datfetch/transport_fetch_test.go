//go:build js

package datfetch

import (
	"context"
	"io"
	"net/url"
	"os"
	"strconv"
	"testing"
)

func TestFetchTransport(t *testing.T) {
	base := os.Getenv(faultServerEnv)
	if base == "" {
		t.Skip(faultServerEnv + " unset: the native TestFetchTransportUnderNode starts the server and runs this test")
	}
	tr := Fetch()
	// count reads one of the fault server's counters for path.
	count := func(counter, path string) int64 {
		r, err := tr(context.Background(), base+"/"+counter+"?path="+url.QueryEscape(path))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			t.Fatalf("%s %q: %v", counter, b, err)
		}
		return n
	}
	counts := faultCounts{
		hits:    func(path string) int { return int(count("hits", path)) },
		written: func(path string) int64 { return count("written", path) },
	}
	t.Run("records", func(t *testing.T) { runRemoteCases(t, base, tr, false, counts) })
	t.Run("listings", func(t *testing.T) { runListingCases(t, base, tr) })
}

// Which Content-Length fetch can trust: only where every header shows and
// no Content-Encoding is sent is it the length of what fetch hands over.
func TestFetchLengths(t *testing.T) {
	for _, tc := range []struct {
		typ             string
		h               map[string]string
		length, encoded int64
	}{
		{"basic", map[string]string{"content-length": "3000"}, 3000, 0},
		{"basic", map[string]string{"content-length": "3000", "content-encoding": "identity"}, 3000, 0},
		{"basic", map[string]string{"content-length": "900", "content-encoding": "gzip"}, -1, 900},
		// Cross-origin, Content-Encoding is hidden unless exposed: the
		// length may be the encoded one.
		{"cors", map[string]string{"content-length": "3000"}, -1, 3000},
		{"basic", map[string]string{}, -1, 0},
		{"basic", map[string]string{"content-length": "-5"}, -1, 0},
		{"basic", map[string]string{"content-length": "lots"}, -1, 0},
	} {
		if l, e := fetchLengths(tc.typ, tc.h); l != tc.length || e != tc.encoded {
			t.Errorf("%s %v: length %d, encoded %d; want %d, %d", tc.typ, tc.h, l, e, tc.length, tc.encoded)
		}
	}
}
