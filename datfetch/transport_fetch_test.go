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
	hits := func(path string) int {
		r, err := tr(context.Background(), base+"/hits?path="+url.QueryEscape(path))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.Atoi(string(b))
		if err != nil {
			t.Fatalf("hits %q: %v", b, err)
		}
		return n
	}
	t.Run("records", func(t *testing.T) { runRemoteCases(t, base, tr, false, hits) })
	t.Run("listings", func(t *testing.T) { runListingCases(t, base, tr) })
}
