//go:build !js

package datfetch

import (
	"context"
	"errors"
	"net/http"
	"testing"
)

// The kinds of failure a caller tells apart, by type and never by text: a
// record that is not there names its id; a server that stays unreachable or
// busy is a NetworkError once the retries are spent; one that answers and
// refuses is a StatusError, not retried.
func TestHTTPErrorsAreTyped(t *testing.T) {
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case "/files/0x0A000001":
			http.NotFound(w, r)
		case "/files/0x0A000002":
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case "/files/0x0A000003":
			http.Error(w, "no", http.StatusBadRequest)
		}
	})
	h := NewHTTP(s.URL+"/files/", fast(HTTPOptions{Retries: 1}))
	ctx := context.Background()

	_, err := h.Get(ctx, 0x0A000001)
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.ID != 0x0A000001 || !errors.Is(err, ErrNotFound) {
		t.Errorf("404: %v; want a NotFoundError for 0x0A000001", err)
	}
	var ne *NetworkError
	if errors.As(err, &ne) {
		t.Errorf("404 counted as a network failure: %v", err)
	}

	_, err = h.Get(ctx, 0x0A000002)
	var st *StatusError
	if !errors.As(err, &ne) || !errors.As(err, &st) || st.Status != 503 || s.count("/files/0x0A000002") != 2 {
		t.Errorf("503 twice: %v after %d requests; want a NetworkError (status 503) after 2", err, s.count("/files/0x0A000002"))
	}

	_, err = h.Get(ctx, 0x0A000003)
	if errors.As(err, &ne) || !errors.As(err, &st) || st.Status != 400 || s.count("/files/0x0A000003") != 1 {
		t.Errorf("400: %v after %d requests; want a StatusError 400, asked once", err, s.count("/files/0x0A000003"))
	}

	down := NewHTTP("http://127.0.0.1:1/files/", fast(HTTPOptions{Retries: 1}))
	if _, err := down.Get(ctx, 0x13000000); !errors.As(err, &ne) {
		t.Errorf("no server: %v; want a NetworkError", err)
	}
}

func TestNotFoundError(t *testing.T) {
	err := NotFound(0x0A0B0C0D)
	if err.Error() != "0x0A0B0C0D: record not found" || !errors.Is(err, ErrNotFound) {
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
	if _, err := NewHTTP(s.URL+"/b/cell/files/", fast(HTTPOptions{})).Landblocks(context.Background()); !errors.Is(err, ErrNotFound) {
		t.Errorf("no listing: %v; want ErrNotFound", err)
	}
}
