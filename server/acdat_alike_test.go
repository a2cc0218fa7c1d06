package server

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"testing"

	"acambient/datfetch/datfile"
	"acambient/internal/testkit/acdatsvc"
)

// emulationOf is the acdatservice emulation over the same dat files:
// acdatservice's index holds each B-tree entry's id, offset and size
// (create_index.rs), its bucket the records as stored.
func emulationOf(t *testing.T, portal, cell *datfile.Dat) *acdatsvc.Server {
	t.Helper()
	placed := func(d *datfile.Dat) map[uint32]acdatsvc.Record {
		m := map[uint32]acdatsvc.Record{}
		err := d.Walk(func(e datfile.Entry) error {
			b, err := d.ReadStored(context.Background(), e, nil)
			m[e.ID] = acdatsvc.Record{Offset: e.Offset, Stored: b}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	return acdatsvc.NewPlaced(placed(portal), placed(cell))
}

// The server's acdatservice routes and the emulation the client is tested
// against answer alike for the same dat files: status, body, the type of
// the body, the paging headers and CORS. Where either is known to differ
// from the service (the JSON rendering neither does: status only) the row
// says so.
func TestAcdatServerMatchesEmulation(t *testing.T) {
	w := acdatWorld(t)
	portal, _ := writeDat(t, datfile.Portal, w.portal, 0x0A000777)
	cell, _ := writeDat(t, datfile.Cell, w.cell)
	ours, _ := newTestHandler(t, Options{Portal: portal, Cell: cell, CORS: "*"})
	emu := emulationOf(t, portal, cell)

	targets := []string{
		// Records in every id spelling, a compressed one as stored.
		"/dats/portal/files/0x13000000", "/dats/portal/files/318767104", "/dats/portal/files/+318767104",
		"/dats/PORTAL/files/0X13000000", "/dats/client_portal.dat/files/0x13000000",
		"/dats/portal/files/0x0A000777", "/dats/portal/files/0x0E000002", "/dats/portal/files/16777217",
		"/dats/cell/files/0xA9B4FFFF", "/dats/Client_Cell.dat/files/2813526015", "/dats/client_cell_1.dat/files/0xa7b2ffff",
		"/dats/cell/files/0xFFFF0001",
		// Refusals, with their texts.
		"/dats/portal/files/-1", "/dats/portal/files/0x", "/dats/portal/files/0x100000000", "/dats/portal/files/4294967296",
		"/dats/portal/files/A9B4FFFF", "/dats/portal/files/%22a", "/dats/textures/files/1", "/dats/textures/files",
		"/dats/cell/files/0x13000000", "/dats/portal/files/0xA9B4FFFF", "/dats/highres/files/0x13000000",
		"/dats/Local-English/files/1",
		"/dats/portal/files/0x13000000?format=xml", "/dats/portal/files/0x13000000?format=",
		"/dats/portal/files/0x13000000?format=json", "/dats/cell/files/0xA9B4FFFF?format=json",
		"/dats/portal/files/0x0A000404?format=json", "/dats/portal/files/0x13000000?format=json&format=bin",
		// Listings: whole, paged, empty, refused.
		"/dats/portal/files", "/dats/cell/files", "/dats/highres/files", "/dats/local_english/files",
		"/dats/portal/files?limit=3&offset=2", "/dats/portal/files?limit=3&offset=9", "/dats/portal/files?offset=10",
		"/dats/portal/files?limit=1&limit=4", "/dats/portal/files?limit=%2B2&offset=007", "/dats/CELL/files?limit=100000",
		"/dats/portal/files?offset=4294967295", "/dats/portal/files?offset=4294967296",
		"/dats/portal/files?limit=0", "/dats/portal/files?limit=100001", "/dats/portal/files?limit=abc&offset=-1",
		"/dats/portal/files?limit=", "/dats/portal/files?limit=+5", "/dats/portal/files?limit=99999999999999999999",
		"/dats/portal/files?offset=-1", "/dats/portal/files?limit=0&offset=x",
	}
	statusOnly := map[string]bool{
		"/dats/portal/files/0x0E000002?format=json": true, // rendered by the service, by neither here
	}
	targets = append(targets, "/dats/portal/files/0x0E000002?format=json")
	for off := 0; off <= 10; off += 4 {
		targets = append(targets, fmt.Sprintf("/dats/portal/files?limit=4&offset=%d", off))
	}
	for _, target := range targets {
		a, b := do(ours, "GET", target), do(emu, "GET", target)
		ab, bb := body(t, a), body(t, b)
		if a.StatusCode != b.StatusCode {
			t.Errorf("GET %s: server %d %q, emulation %d %q", target, a.StatusCode, trunc(ab), b.StatusCode, trunc(bb))
			continue
		}
		if statusOnly[target] {
			continue
		}
		if ab != bb {
			t.Errorf("GET %s (%d): server\n%s\nemulation\n%s", target, a.StatusCode, trunc(ab), trunc(bb))
		}
		if ca, cb := mediaType(a), mediaType(b); ca != cb {
			t.Errorf("GET %s: Content-Type server %q, emulation %q", target, ca, cb)
		}
		for _, k := range []string{"X-Limit", "X-Offset", "Access-Control-Allow-Origin"} {
			if a.Header.Get(k) != b.Header.Get(k) {
				t.Errorf("GET %s: %s server %q, emulation %q", target, k, a.Header.Get(k), b.Header.Get(k))
			}
		}
		for _, r := range []*http.Response{a, b} {
			if e := r.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(e, "X-Limit") || !strings.Contains(e, "X-Offset") {
				t.Errorf("GET %s: Access-Control-Expose-Headers %q", target, e)
			}
		}
	}
	// A browser's preflight: both let the page make the request.
	pre := []string{"Origin", "https://map.example", "Access-Control-Request-Method", "GET"}
	for name, h := range map[string]http.Handler{"server": ours, "emulation": emu} {
		r := do(h, "OPTIONS", "/dats/portal/files/0x13000000", pre...)
		if r.StatusCode/100 != 2 || r.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(r.Header.Get("Access-Control-Allow-Methods"), "GET") {
			t.Errorf("%s preflight: %d %v", name, r.StatusCode, r.Header)
		}
	}
}

// mediaType is a Content-Type as a client compares it: the type and the
// charset, in any case and spacing.
func mediaType(r *http.Response) string {
	t, p, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return "unparsable " + r.Header.Get("Content-Type")
	}
	return t + ";" + strings.ToLower(p["charset"])
}
