//go:build !js

package datfetch

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"acambient/datfetch/source"
)

// A record that is not there names its id (NotFoundError), for whoever
// reports it; it is no network failure.
func TestHTTPNotFoundNamesTheID(t *testing.T) {
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) { http.NotFound(w, r) })
	_, err := NewHTTP(s.URL+"/files/", fast(HTTPOptions{})).Get(context.Background(), 0x0A000001)
	var nf *source.NotFoundError
	if !errors.As(err, &nf) || nf.ID != 0x0A000001 || !errors.Is(err, source.ErrNotFound) || errors.Is(err, ErrNetwork) {
		t.Errorf("404: %v; want a NotFoundError for 0x0A000001, not ErrNetwork", err)
	}
}

func TestNotFoundError(t *testing.T) {
	err := source.NotFound(0x0A0B0C0D)
	if err.Error() != "0x0A0B0C0D: record not found" || !errors.Is(err, source.ErrNotFound) {
		t.Errorf("NotFound = %q", err)
	}
}

// Landblocks reads the listing beside the cell records; a server without
// one is ErrNotFound.
func TestHTTPLandblocksListing(t *testing.T) {
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path == "/a/cell/files/landblocks.txt" {
			w.Write([]byte("0xA9B4FFFF\n0xA9B5FFFF\n"))
			return
		}
		http.NotFound(w, r)
	})
	ids, err := NewHTTP(s.URL+"/a/cell/files/", fast(HTTPOptions{})).Landblocks(context.Background())
	if err != nil || len(ids) != 2 || ids[0] != 0xA9B4FFFF || ids[1] != 0xA9B5FFFF {
		t.Errorf("listing %x, %v", ids, err)
	}
	if _, err := NewHTTP(s.URL+"/b/cell/files/", fast(HTTPOptions{})).Landblocks(context.Background()); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("no listing: %v; want ErrNotFound", err)
	}
}
