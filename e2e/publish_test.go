package e2e

// Tests of the published page (issue 21): `export -source` writes the page
// alone, which a plain static host serves, reading its records from
// another origin (the acdatservice emulation, as a published page reads
// dats.treestats.net). A default that fails is named in plain words with
// the other sources offered, never switched from silently; position links
// open where they say, and the Copy link button gives one. The workflow
// that publishes it is tested in pages_test.go.

import (
	"context"
	"fmt"
	"math"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"acambient/internal/export"
)

// TestPublishUnit runs e2e/publish_unit.test.mjs under node --test.
func TestPublishUnit(t *testing.T) {
	nodeTest(t, "publish_unit.test.mjs")
}

// pubEngines: the published page's own logic (its messages, offers, the
// hash it reads, the link it writes) in Chromium, as source_test.go's. They
// pass in Firefox too ([]string{"chromium", "firefox"}: its driver runs the
// probe before the page's scripts), but each engine adds minutes to a
// package that must stay inside go test's ten.
var pubEngines = []string{"chromium"}

// pubSite is an export of the page alone behind Go's file server: a
// static host with nothing of ours on it. records counts the requests it
// saw for record routes (it holds none; a page asking it would be reading
// a source nobody chose).
type pubSite struct {
	url     string
	records atomic.Int64
}

func publish(t *testing.T, src export.PageSource) *pubSite {
	t.Helper()
	www, _ := site(t)
	out := t.TempDir()
	if _, err := export.Write(context.Background(), export.Options{WWW: www, Out: out, Source: src}); err != nil {
		t.Fatal(err)
	}
	mime.AddExtensionType(".wasm", "application/wasm")
	files := http.FileServer(http.Dir(out))
	p := &pubSite{}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/files/") {
			p.records.Add(1)
		}
		files.ServeHTTP(rw, r)
	}))
	t.Cleanup(srv.Close)
	p.url = srv.URL + "/"
	return p
}

// pubWhere is the part of state().where a link names.
type pubWhere struct {
	ObjcellID string  `json:"objcellId"`
	X         float64 `json:"x"`
	Y         float64 `json:"y"`
	Z         float64 `json:"z"`
	GX        float64 `json:"X"` // global metres: named, or "X" would fill x
	GY        float64 `json:"Y"`
	NS        float64 `json:"ns"`
	EW        float64 `json:"ew"`
}

func (w pubWhere) String() string {
	return fmt.Sprintf("%s/%.2f,%.2f,%.2f (%.4fN %.4fE)", w.ObjcellID, w.X, w.Y, w.Z, w.NS, w.EW)
}

// pubOpen opens href as a new document and waits until the page has
// loaded its source and moved the player (no gesture: the audio waits):
// the overlay says where the player stands once the first move is done
// (app.js connect), which for map coordinates waits on the terrain.
func pubOpen(b *lfBrowser, href string) pubWhere {
	b.t.Helper()
	b.do("goto", "url", "about:blank") // a new document, not a hash change
	b.do("goto", "url", href)
	b.waitFor(`window.ambient && window.ambient.info.landmarks.length > 0 && window.ambient.state().where &&
		document.getElementById("overlayMsg").textContent.startsWith("You stand at")`, 60*time.Second)
	return pubState(b)
}

func pubState(b *lfBrowser) pubWhere {
	b.t.Helper()
	var w pubWhere
	b.eval(&w, `window.ambient.state().where`)
	return w
}

const pubCM = 0.005 // links carry centimetres

// TestPublishedSourceFails: a published page whose default source is
// unreachable, answers without CORS headers, or speaks the other API says
// which in plain words (by the error's code), offers to try it again with
// the box focused on its address, and switches to no other source.
func TestPublishedSourceFails(t *testing.T) { forEngines(t, pubEngines, publishedSourceFails) }

func publishedSourceFails(t *testing.T, spec browserSpec) {
	s := srcServers(t)
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close() // nothing listens there now: connection refused
	noCORS := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		s.emu.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			if !strings.HasPrefix(k, "Access-Control-") {
				rw.Header()[k] = v
			}
		}
		rw.WriteHeader(rec.Code)
		rw.Write(rec.Body.Bytes())
	}))
	t.Cleanup(noCORS.Close)

	b := srcOpenIn(t, spec)
	var sites []*pubSite
	for _, c := range []struct {
		name string
		src  export.PageSource
		want string
	}{
		{"unreachable", export.PageSource{Server: deadURL, API: "acdatservice"}, "is unreachable: no answer from " + deadURL},
		{"no CORS", export.PageSource{Server: noCORS.URL, API: "acdatservice"}, "answers, but without CORS headers"},
		{"wrong api", export.PageSource{Server: s.emuURL, API: "ours"}, `has no region record 0x13000000 (404). Is it a dat server? If it is an acdatservice, choose "acdatservice"`},
	} {
		p := publish(t, c.src)
		sites = append(sites, p)
		regionBefore := s.emu.Hits("/dats/portal/files/0x13000000")
		b.do("goto", "url", "about:blank")
		b.do("goto", "url", p.url+"#0xA9B5002D/120,96,22.85")
		b.waitFor(`document.getElementById("srcMsg").textContent !== ""`, 60*time.Second)
		var got struct {
			Msg, Now, Kind, URL, Focus string
			Selected, Amb              bool
			Offers                     []struct{ Text, Server, API string }
		}
		b.eval(&got, `(() => {
			const $ = (id) => document.getElementById(id), u = $("srcURL"), a = document.activeElement;
			return { Msg: $("srcMsg").textContent, Now: $("srcNow").textContent, Kind: $("srcKind").value, URL: u.value,
				Focus: a ? a.id : "", Selected: u.selectionStart === 0 && u.selectionEnd === u.value.length && u.value !== "",
				Amb: !!window.ambient,
				Offers: [...$("srcOffers").querySelectorAll("button")].map((b) => ({ Text: b.textContent, Server: b.dataset.server, API: b.dataset.api })) };
		})()`)
		t.Logf("%s: %q; offers %+v", c.name, got.Msg, got.Offers)
		if !strings.Contains(got.Msg, c.want) {
			t.Errorf("%s: the panel says %q; want %q", c.name, got.Msg, c.want)
		}
		// Not switched: nothing plays, and the page says so.
		if got.Amb || got.Now != "Not connected." {
			t.Errorf("%s: after the failure window.ambient %v, source line %q; want none and Not connected.", c.name, got.Amb, got.Now)
		}
		// The offers: the same source again (it is the page's home, and
		// nothing else has worked here), and the box on its address,
		// focused and selected for typing another.
		host := strings.TrimPrefix(c.src.Server, "http://")
		if len(got.Offers) != 1 || got.Offers[0].Text != "Try "+host+" again" || got.Offers[0].Server != c.src.Server || got.Offers[0].API != c.src.API {
			t.Errorf("%s: offers %+v; want one, Try %s again", c.name, got.Offers, host)
		}
		wantKind := map[string]string{"acdatservice": "acdatservice", "ours": "url"}[c.src.API]
		if got.Focus != "srcURL" || !got.Selected || got.URL != c.src.Server || got.Kind != wantKind {
			t.Errorf("%s: focus on %q (selected %v), the box shows %q %q; want srcURL focused on %s (%s)", c.name, got.Focus, got.Selected, got.Kind, got.URL, c.src.Server, wantKind)
		}
		if c.name == "unreachable" && s.emu.Hits("/dats/portal/files/0x13000000") != regionBefore {
			t.Errorf("%s: the emulation was asked for the region; want no other source read", c.name)
		}
		// Try again: the same source, the same words (a new attempt: the
		// message is cleared while connecting, then set again).
		b.eval(nil, `window.__tries = 0; new MutationObserver(() => { if (document.getElementById("srcNow").textContent.startsWith("Connecting")) window.__tries++; })
			.observe(document.getElementById("srcNow"), { childList: true, characterData: true, subtree: true })`)
		lfClickElement(b, "#srcOffers button")
		b.waitFor(`window.__tries > 0 && document.getElementById("srcMsg").textContent !== ""`, 60*time.Second)
		if m := srcText(b, "srcMsg"); !strings.Contains(m, c.want) {
			t.Errorf("%s, tried again: %q", c.name, m)
		}
	}
	b.logs() // the failed requests are the point here
	// Long after the first failure: no page host was ever asked for a
	// record (it holds none; a fallback to "this server" would ask it).
	for i, p := range sites {
		if n := p.records.Load(); n != 0 {
			t.Errorf("site %d: the page's own host saw %d record requests; want none", i, n)
		}
	}
}

// TestPublishedOffersDefault: on a page whose default works, a link naming
// a source that fails offers the default; nothing is read from it until
// the offer is taken, and then it plays.
func TestPublishedOffersDefault(t *testing.T) { forEngines(t, pubEngines, publishedOffersDefault) }

func publishedOffersDefault(t *testing.T, spec browserSpec) {
	s := srcServers(t)
	p := publish(t, export.PageSource{Server: s.emuURL, API: "acdatservice"})
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()

	b := srcOpenIn(t, spec)
	regionBefore := s.emu.Hits("/dats/portal/files/0x13000000")
	b.do("goto", "url", p.url+"?server="+url.QueryEscape(deadURL)+"#0xA9B5002D/120,96,22.85")
	b.waitFor(`document.getElementById("srcMsg").textContent !== ""`, 60*time.Second)
	var offers []string
	b.eval(&offers, `[...document.querySelectorAll("#srcOffers button")].map((b) => b.textContent)`)
	emuHost := strings.TrimPrefix(s.emuURL, "http://")
	want := []string{"Try " + strings.TrimPrefix(deadURL, "http://") + " again", "Use this page's default, " + emuHost}
	if fmt.Sprint(offers) != fmt.Sprint(want) {
		t.Errorf("offers %q; want %q", offers, want)
	}
	if n := s.emu.Hits("/dats/portal/files/0x13000000"); n != regionBefore {
		t.Errorf("the default was read (%d region requests) before the user took the offer", n-regionBefore)
	}
	var label string
	b.eval(&label, `document.getElementById("srcKind").options[0].textContent`)
	if label != "This page's default: "+emuHost {
		t.Errorf("the box's first kind reads %q; want This page's default: %s", label, emuHost)
	}
	b.eval(nil, `[...document.querySelectorAll("#srcOffers button")].find((b) => b.textContent.startsWith("Use this page's default")).click()`)
	b.waitFor(`window.ambient && window.ambient.info.landmarks.length > 0`, 60*time.Second)
	var search string
	b.eval(&search, `location.search`)
	if now := srcText(b, "srcNow"); now != "Playing the demo world, from "+emuHost+" (acdatservice)." || search != "" {
		t.Errorf("after the offer: %q, query %q; want Playing the demo world, from %s (acdatservice). and no query (the default)", now, search, emuHost)
	}
	lfClickElement(b, "#overlay")
	b.waitFor(`window.ambient.running`, 10*time.Second)
	srcLandmark(t, b, "river")
	if n := p.records.Load(); n != 0 {
		t.Errorf("the page's own host saw %d record requests", n)
	}
	b.logs()
}

// TestPositionLinks: the published page opens each POS form in its hash
// (%-encoded too) at that spot before any gesture; the Copy link button
// gives a link (on the clipboard, else selected in its field) that opens
// the same spot, naming the source when it is not the page's default.
func TestPositionLinks(t *testing.T) { forEngines(t, pubEngines, positionLinks) }

func positionLinks(t *testing.T, spec browserSpec) {
	s := srcServers(t)
	p := publish(t, export.PageSource{Server: s.emuURL, API: "acdatservice"})
	b := srcOpenIn(t, spec)

	// A spot by the river that is not the page's default (the river
	// landmark, where a link the page cannot read lands instead).
	river := pubWhere{ObjcellID: "0xA9B5002D", X: 130.5, Y: 100.25, Z: 22.85}
	// 43.3N,33.8E: X = (338 + 1019.5)·24 = 32580 = 192·0xA9 + 132,
	// Y = (433 + 1019.5)·24 = 34860 = 192·0xB5 + 108: cell 1 + 8·5 + 4 = 0x2D.
	mapSpot := pubWhere{ObjcellID: "0xA9B5002D", X: 132, Y: 108, NS: 43.3, EW: 33.8}
	for _, c := range []struct {
		hash string
		want pubWhere
	}{
		{"0xA9B5002D/120,96,22.85", pubWhere{ObjcellID: "0xA9B5002D", X: 120, Y: 96, Z: 22.85}}, // the example (the landmark)
		{"0xA9B5002D/130.5,100.25,22.85", river},
		{"0xA9B5002D%2F130.5%2C100.25%2C22.85", river},                           // every separator %-encoded
		{"0xA9B5002D%20%5B130.5%20100.25%2022.85%5D", river},                     // a pasted /loc line
		{"Your%20location%20is:%200xA9B5002D%20[130.5%20100.25%2022.85]", river}, // with its preamble
		{"@32578.5,34852.25,22.85", river},                                       // global metres
		{"43.3N,33.8E", mapSpot},                                                 // map coordinates, z the terrain's
	} {
		got := pubOpen(b, p.url+"#"+c.hash)
		ok := got.ObjcellID == c.want.ObjcellID && math.Abs(got.X-c.want.X) < pubCM && math.Abs(got.Y-c.want.Y) < pubCM
		if c.want.NS != 0 {
			ok = ok && math.Abs(got.NS-c.want.NS) < 1e-6 && math.Abs(got.EW-c.want.EW) < 1e-6
		} else {
			ok = ok && math.Abs(got.Z-c.want.Z) < pubCM
		}
		var running bool
		b.eval(&running, `window.ambient.running`)
		if !ok || running {
			t.Errorf("#%s: the player is at %v (audio running %v); want %v, before any gesture", c.hash, got, running, c.want)
		}
		var hash string
		b.eval(&hash, `location.hash`)
		if !strings.HasPrefix(hash, "#"+got.ObjcellID+"/") {
			t.Errorf("#%s: the hash after the move is %q; want the spot's POS", c.hash, hash)
		}
	}

	// Copy link, with the clipboard granted: it holds the link, which names
	// no source (this is the page's default) and opens the same spot.
	at := pubOpen(b, p.url+"#0xA9B5002D/120,96,22.85")
	clip := func(grant bool) (link, field, msg, focus string, selected bool) {
		t.Helper()
		b.eval(nil, `window.__copied = null; Object.defineProperty(navigator, "clipboard", { configurable: true, value: { writeText: (s) => `+
			map[bool]string{true: `{ window.__copied = s; return Promise.resolve(); }`, false: `Promise.reject(new DOMException("Write permission denied.", "NotAllowedError"))`}[grant]+` } })`)
		lfClickElement(b, "#copyLink")
		b.waitFor(`document.getElementById("linkMsg").textContent !== ""`, 10*time.Second)
		var r struct {
			Copied, Field, Msg, Focus string
			Selected                  bool
		}
		b.eval(&r, `(() => { const f = document.getElementById("linkField"), a = document.activeElement;
			return { Copied: window.__copied || "", Field: f.hidden ? "" : f.value, Msg: document.getElementById("linkMsg").textContent,
				Focus: a ? a.id : "", Selected: f.selectionStart === 0 && f.selectionEnd === f.value.length && f.value !== "" }; })()`)
		b.eval(nil, `document.getElementById("linkMsg").textContent = ""`)
		return r.Copied, r.Field, r.Msg, r.Focus, r.Selected
	}
	link, field, msg, _, _ := clip(true)
	if want := p.url + "#0xA9B5002D/120.00,96.00,22.85"; link != want || field != want || msg != "Link copied." {
		t.Errorf("copy link: clipboard %q, field %q, %q; want %s in both, Link copied.", link, field, msg, want)
	}
	if got := pubOpen(b, link); got != at {
		t.Errorf("the copied link opens %v; want %v", got, at)
	}
	// Refused: the link is selected in its field for the user's own copy.
	link, field, msg, focus, selected := clip(false)
	if link != "" || field != p.url+"#0xA9B5002D/120.00,96.00,22.85" || focus != "linkField" || !selected || !strings.Contains(msg, "Copy the selected link") {
		t.Errorf("copy link, clipboard refused: field %q, focus %q, selected %v, %q; want the link selected in its field", field, focus, selected, msg)
	}

	// Another source (serve's routes on another origin), another spot: the
	// link names the source, and opens both in a browser that remembers
	// nothing.
	b.eval(nil, `(() => { window.__first = window.ambient;
		const k = document.getElementById("srcKind"); k.value = "url"; k.dispatchEvent(new Event("change"));
		document.getElementById("srcURL").value = `+lfJS(s.page)+`; })()`)
	lfClickElement(b, "#srcForm button")
	b.waitFor(`window.ambient && window.ambient !== window.__first && window.ambient.info.landmarks.length > 0 && window.ambient.state().where`, 60*time.Second)
	b.eval(nil, `(() => { document.getElementById("gotoInput").value = "0xA5B00037/144,144,24.78";
		document.getElementById("gotoForm").requestSubmit(); })()`)
	b.waitFor(`window.ambient.state().where.objcellId === "0xA5B00037" && location.hash.startsWith("#0xA5B00037/")`, 30*time.Second)
	desert := pubState(b)
	link, _, _, _, _ = clip(true)
	if want := p.url + "?server=" + url.QueryEscape(s.page) + "#0xA5B00037/144.00,144.00,24.78"; link != want {
		t.Errorf("copy link on another source: %q; want %s", link, want)
	}
	b.eval(nil, `localStorage.clear()`)
	ownBefore := s.ownRecords.Load()
	got := pubOpen(b, link)
	var kind, field2 string
	b.eval(&kind, `document.getElementById("srcKind").value`)
	b.eval(&field2, `document.getElementById("srcURL").value`)
	if got != desert || kind != "url" || field2 != s.page || s.ownRecords.Load() == ownBefore {
		t.Errorf("the link opens %v from %q %q; want %v from %s", got, kind, field2, desert, s.page)
	}
	if n := p.records.Load(); n != 0 {
		t.Errorf("the page's own host saw %d record requests", n)
	}
	srcSwitchLogs(t, b) // each new document aborts the last one's fetches
}
