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
