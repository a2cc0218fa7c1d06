package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"acambient/core/dat"
	"acambient/core/demo"
	"acambient/core/zones"
	"acambient/datfetch/source"
)

// countingLister counts the region's reads (one per computation of the
// layer) and can be made to fail them.
type countingLister struct {
	source.Lister
	regions atomic.Int32
	fail    atomic.Bool
	gate    chan struct{} // when set, a region read waits for it to close
}

func (c *countingLister) Get(ctx context.Context, id uint32) ([]byte, error) {
	if id == dat.RegionID {
		c.regions.Add(1)
		if c.gate != nil {
			<-c.gate
		}
		if c.fail.Load() {
			return nil, errors.New("the disk is gone")
		}
	}
	return c.Lister.Get(ctx, id)
}

// TestServeZones: /zones.json and /zones.png are, byte for byte, what the
// zones command writes for the records served; requests that come while
// the layer is computed share that one computation, and later ones get it
// from memory (a 304 for a known ETag); a failed computation is a 500 and
// the next request computes again; NoZones leaves the paths to www.
func TestServeZones(t *testing.T) {
	dw, err := demo.Build()
	if err != nil {
		t.Fatal(err)
	}
	portal := &countingLister{Lister: source.NewMemory(dw.Portal), gate: make(chan struct{})}
	cell := source.NewMemory(dw.Cell)
	want := t.TempDir()
	if _, err := zones.Write(context.Background(), source.NewMemory(dw.Portal), cell, want, zones.Options{}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(Options{Portal: portal, Cell: cell, CORS: "*", Log: log.New(io.Discard, "", 0)}))
	defer srv.Close()

	// Eight at once, four for each file, while the region read is held:
	// one computation answers all.
	var wg sync.WaitGroup
	bodies := make([][]byte, 8)
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := zones.IndexFile
			if i%2 == 1 {
				f = zones.ImageFile
			}
			resp, err := http.Get(srv.URL + "/" + f)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("%s: %s, CORS %q", f, resp.Status, resp.Header.Get("Access-Control-Allow-Origin"))
			}
			bodies[i], _ = io.ReadAll(resp.Body)
		}()
	}
	for deadline := time.Now().Add(30 * time.Second); portal.regions.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no computation began in 30 s")
		}
	}
	close(portal.gate)
	wg.Wait()
	if n := portal.regions.Load(); n != 1 {
		t.Errorf("%d computations for 8 requests, want 1", n)
	}
	for i, b := range bodies {
		f := []string{zones.IndexFile, zones.ImageFile}[i%2]
		w, err := os.ReadFile(filepath.Join(want, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, w) {
			t.Errorf("request %d: %s is %d bytes unlike the zones command's %d", i, f, len(b), len(w))
		}
	}

	// From memory: the same bytes, and a 304 for the ETag.
	resp, err := http.Get(srv.URL + "/zones.png")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/zones.png", nil)
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp.Header.Get("Content-Type") != "image/png" || resp2.StatusCode != http.StatusNotModified || portal.regions.Load() != 1 {
		t.Errorf("again: %s, then %s for its ETag, %d computations; want image/png, 304, still 1", resp.Header.Get("Content-Type"), resp2.Status, portal.regions.Load())
	}

	// A computation that fails is not kept.
	bad := &countingLister{Lister: source.NewMemory(dw.Portal)}
	bad.fail.Store(true)
	srv2 := httptest.NewServer(New(Options{Portal: bad, Cell: cell, Log: log.New(io.Discard, "", 0)}))
	defer srv2.Close()
	if r, err := http.Get(srv2.URL + "/zones.json"); err != nil || r.StatusCode != http.StatusInternalServerError {
		t.Errorf("with the region unreadable: %v %v, want 500", r.Status, err)
	}
	bad.fail.Store(false)
	if r, err := http.Get(srv2.URL + "/zones.json"); err != nil || r.StatusCode != 200 || bad.regions.Load() != 2 {
		t.Errorf("readable again: %v %v after %d computations, want 200 after 2", r.Status, err, bad.regions.Load())
	}

	// NoZones: the paths are www's (none here).
	srv3 := httptest.NewServer(New(Options{Portal: portal, Cell: cell, NoZones: true, Log: log.New(io.Discard, "", 0)}))
	defer srv3.Close()
	if r, err := http.Get(srv3.URL + "/zones.json"); err != nil || r.StatusCode != http.StatusNotFound {
		t.Errorf("NoZones: %v %v, want 404", r.Status, err)
	}
}
