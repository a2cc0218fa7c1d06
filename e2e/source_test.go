package e2e

// Tests of the demo page's data source control (issue 13 item 4): the demo
// world served through the acdatservice emulation on another origin, some
// records stored compressed as acdatservice serves them, chosen by the
// page's URL and by its control (remembered, the old instance disposed); at
// the landmarks the page's instances are gather's and sound reaches the
// destination; a source that is unreachable, blocks CORS, lacks cell
// records or speaks the other API gets its own plain message in the panel.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"acambient/core/demo"
	"acambient/datfetch/source"
	"acambient/internal/testkit/acdatsvc"
	"acambient/server"
)

// srcSetup is the page's own server (`serve` on the demo world) and, on
// another port, hence another origin, the acdatservice emulation.
type srcSetup struct {
	page, emuURL string
	emu          *acdatsvc.Server
	compressed   []string     // emulation paths whose records are stored compressed
	ownRecords   atomic.Int64 // record requests the page's own server saw
}

func srcServers(t *testing.T) *srcSetup {
	t.Helper()
	www, w := site(t)
	s := &srcSetup{}
	own := server.New(server.Options{
		Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www, CORS: "*",
	})
	page := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/files/") {
			s.ownRecords.Add(1)
		}
		own.ServeHTTP(rw, r)
	}))
	t.Cleanup(page.Close)
	// Every record that zlib shrinks is stored compressed (the region, the
	// landblocks, the tables): the client must inflate what arrives.
	all := func(uint32, []byte) bool { return true }
	portal, cell := acdatsvc.Store(w.Portal, all), acdatsvc.Store(w.Cell, all)
	for name, d := range map[string]struct{ raw, stored map[uint32][]byte }{
		"portal": {w.Portal, portal}, "cell": {w.Cell, cell},
	} {
		for id, b := range d.stored {
			if len(b) != len(d.raw[id]) {
				s.compressed = append(s.compressed, fmt.Sprintf("/dats/%s/files/0x%08X", name, id))
			}
		}
	}
	if len(s.compressed) == 0 {
		t.Fatal("no demo record is stored compressed")
	}
	s.emu = acdatsvc.New(portal, cell)
	emu := httptest.NewServer(s.emu)
	t.Cleanup(emu.Close)
	s.page, s.emuURL = page.URL, emu.URL
	return s
}

// compressedHits counts requests for records stored compressed.
func (s *srcSetup) compressedHits() int {
	n := 0
	for _, p := range s.compressed {
		n += s.emu.Hits(p)
	}
	return n
}

// srcOpen opens Chromium with the probe: the source control is the page's
// own logic, the same in every engine.
func srcOpen(t *testing.T) *lfBrowser { return srcOpenIn(t, needBrowser(t, "chromium")) }

// srcOpenIn opens the browser spec describes with the probe.
func srcOpenIn(t *testing.T, spec browserSpec) *lfBrowser {
	b := lfLaunch(t, spec)
	b.do("initScript", "source", lfProbe)
	return b
}

// srcLandmark jumps to a demo landmark with the page's button and checks the
// page's audible instances against gather's there, and sound at the
// destination from this spot's voices. A page already standing in the
// landmark's cell (opened there by its hash, or by default at the river)
// rebuilds nothing when the button is pressed, and the rebuild it made on
// opening may predate the watch; so such a page first steps to another
// landmark's cell and waits for that rebuild.
func srcLandmark(t *testing.T, b *lfBrowser, name string) {
	t.Helper()
	var l demo.Landmark
	for _, x := range demo.Landmarks {
		if x.Name == name {
			l = x
		}
	}
	lfWatchRebuilds(b, "window.ambient")
	var here string
	b.eval(&here, `(window.ambient.state().player || {}).objcellId || ""`)
	if lfID(here) == l.ObjCellID {
		for _, o := range demo.Landmarks {
			if o.ObjCellID != l.ObjCellID {
				lfClickElement(b, fmt.Sprintf(`#landmarks button[data-name=%q]`, o.Name))
				b.waitFor(fmt.Sprintf(`window.ambient.__rebuilds.some((r) => r.objcellId === %q)`, fmt.Sprintf("0x%08X", o.ObjCellID)), 30*time.Second)
				break
			}
		}
	}
	lfClickElement(b, fmt.Sprintf(`#landmarks button[data-name=%q]`, name))
	// gather at the listener the page reports (the button's position, in
	// the centimetres the page's links carry).
	var st lfPageState
	for deadline := time.Now().Add(30 * time.Second); ; {
		b.eval(&st, `window.ambient.state()`)
		var diff string
		got, _ := json.Marshal(lfAudible(st.Summary()))
		var exp []byte
		if lfID(st.Player.ObjcellID) != l.ObjCellID {
			diff = fmt.Sprintf("listener in %v", st.Player.ObjcellID)
		} else {
			want := lfGather(t, fmt.Sprintf("0x%08X/%v,%v,%v", l.ObjCellID, st.Player.X, st.Player.Y, st.Player.Z))
			if len(want.Sounds) == 0 {
				t.Fatalf("%s: gather has no sounds", name)
			}
			exp, _ = json.Marshal(lfAudible(lfSummary{want.Outdoorish, float64(want.TotalSoundCount), want.ContributingCells, lfJSON(want.Sounds)}))
			if diff = lfDiff(got, exp); diff == "" {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the page's instances stay unlike gather's: %s\npage   %s\ngather %s", name, diff, got, exp)
		}
		time.Sleep(100 * time.Millisecond)
	}
	lfSoundsHere(t, b, "window.ambient", l.ObjCellID, srcRMS)
	var rms float64
	b.eval(&rms, srcRMS)
	t.Logf("%s: %d audible instances equal gather's; RMS %.4f at the destination", name, len(lfAudible(st.Summary()).Sounds), rms)
}

// srcRMS is the RMS at the destination of the current instance's audio
// context (lfProbe's tap), over its last 32768 samples: a replaced
// instance's closed context does not count.
const srcRMS = `(() => {
  const an = window.ambient && window.ambient.audioContext && window.ambient.audioContext.__probe;
  if (!an || window.ambient.audioContext.state !== "running") return 0;
  const td = new Float32Array(an.fftSize);
  an.getFloatTimeDomainData(td);
  let ss = 0; for (const v of td) ss += v * v;
  return Math.sqrt(ss / td.length);
})()`

// srcText reads an element's text.
func srcText(b *lfBrowser, id string) string {
	var s string
	b.eval(&s, `document.getElementById(`+lfJS(id)+`).textContent`)
	return s
}

// TestPageSourceByURL: ?server=…&api=acdatservice picks the emulation; the
// page's own server is asked for no record.
func TestPageSourceByURL(t *testing.T) {
	s := srcServers(t)
	b := srcOpen(t)
	b.do("goto", "url", s.page+"/?server="+url.QueryEscape(s.emuURL)+"&api=acdatservice")
	b.waitFor(`window.ambient && window.ambient.info.landmarks.length > 0`, 60*time.Second)
	var kind, field string
	b.eval(&kind, `document.getElementById("srcKind").value`)
	b.eval(&field, `document.getElementById("srcURL").value`)
	if now := srcText(b, "srcNow"); kind != "acdatservice" || field != s.emuURL || !strings.Contains(now, "acdatservice") {
		t.Errorf("the control shows %q %q (%q); want acdatservice at %s", kind, field, now, s.emuURL)
	}
	lfClickElement(b, "#overlay")
	b.waitFor(`window.ambient.running`, 10*time.Second)
	srcLandmark(t, b, "desert")
	srcLandmark(t, b, "river")
	if n := s.ownRecords.Load(); n != 0 {
		t.Errorf("the page's own server answered %d record requests; want all from the emulation", n)
	}
	if s.emu.Hits("/dats/portal/files/0x13000000") == 0 || s.compressedHits() == 0 {
		t.Errorf("the emulation saw %d region requests and %d of compressed records; want both > 0",
			s.emu.Hits("/dats/portal/files/0x13000000"), s.compressedHits())
	}
	t.Logf("%d requests for records stored compressed", s.compressedHits())
	if m := srcText(b, "srcMsg"); m != "" {
		t.Errorf("source message %q on a good source", m)
	}
	lfNoErrors(t, b)
}

// TestPageSourceControl: from this server to the emulation with the
// control: the old instance is disposed, the choice is remembered across a
// reload and shown in the URL; back to this server clears the URL.
func TestPageSourceControl(t *testing.T) {
	s := srcServers(t)
	b := srcOpen(t)
	b.do("goto", "url", s.page+"/#0xA9B5002D/120,96,22.85")
	b.waitFor(`window.ambient && window.ambient.info.landmarks.length > 0`, 60*time.Second)
	if now := srcText(b, "srcNow"); !strings.Contains(now, "the demo world, from this server") {
		t.Errorf("source line %q; want the demo world, from this server", now)
	}
	lfClickElement(b, "#overlay")
	b.waitFor(`window.ambient.running`, 10*time.Second)
	regionBefore := s.emu.Hits("/dats/portal/files/0x13000000")

	b.eval(nil, `(() => { window.__first = window.ambient;
		const k = document.getElementById("srcKind"); k.value = "acdatservice"; k.dispatchEvent(new Event("change"));
		document.getElementById("srcURL").value = `+lfJS(s.emuURL)+`; })()`)
	lfClickElement(b, "#srcForm button")
	b.waitFor(`window.ambient && window.ambient !== window.__first && window.ambient.info.landmarks.length > 0`, 60*time.Second)
	srcSwitchLogs(t, b)
	var disposed bool
	b.eval(&disposed, `window.__first._disposed && window.__first.audioContext.state === "closed"`)
	if !disposed {
		t.Error("the first instance was not disposed (or its audio not closed)")
	}
	var stored, search string
	b.eval(&stored, `localStorage.getItem("acambient.source")`)
	b.eval(&search, `location.search`)
	if stored != fmt.Sprintf(`{"server":%q,"api":"acdatservice"}`, s.emuURL) || search != "?server="+url.QueryEscape(s.emuURL)+"&api=acdatservice" {
		t.Errorf("remembered %s, URL query %s", stored, search)
	}
	if s.emu.Hits("/dats/portal/files/0x13000000") == regionBefore {
		t.Error("the emulation was not asked for the region after the switch")
	}
	// The audio comes back without another click on the overlay.
	b.waitFor(`window.ambient.running`, 10*time.Second)
	srcLandmark(t, b, "desert")

	// Reload without a query: the remembered source.
	regionBefore = s.emu.Hits("/dats/portal/files/0x13000000")
	b.do("goto", "url", s.page+"/")
	b.waitFor(`window.ambient && window.ambient.info.landmarks.length > 0`, 60*time.Second)
	var kind string
	b.eval(&kind, `document.getElementById("srcKind").value`)
	if kind != "acdatservice" || s.emu.Hits("/dats/portal/files/0x13000000") == regionBefore {
		t.Errorf("after a reload the control shows %q and the emulation saw %d new region requests; want the remembered acdatservice",
			kind, s.emu.Hits("/dats/portal/files/0x13000000")-regionBefore)
	}

	// Back to this server.
	b.eval(nil, `window.__first = window.ambient; document.getElementById("srcKind").value = "here"`)
	lfClickElement(b, "#srcForm button")
	b.waitFor(`window.ambient && window.ambient !== window.__first`, 60*time.Second)
	srcSwitchLogs(t, b)
	b.eval(&search, `location.search`)
	if now := srcText(b, "srcNow"); search != "" || !strings.Contains(now, "this server") {
		t.Errorf("back to this server: URL query %q, source line %q", search, now)
	}

	// What was pending on an instance when it was disposed rejects with
	// the contract's "disposed" (docs/interfaces.md), not the Go side's
	// "context canceled": started() with no player never resolves by itself.
	var pending struct{ Started, Tile string }
	b.eval(&pending, `(async () => {
		const { AmbientAudio } = await import("/ambient.js");
		const a = await AmbientAudio.load({});
		const code = (p) => p.then(() => "resolved", (e) => e.code || String(e));
		const st = code(a.started()), tl = code(a.tile(0, 0));
		a.dispose();
		return { Started: await st, Tile: await tl };
	})()`)
	if pending.Started != "disposed" {
		t.Errorf("started() pending at dispose settled %q; want disposed", pending.Started)
	}
	if pending.Tile != "disposed" && pending.Tile != "resolved" {
		t.Errorf("tile() pending at dispose settled %q; want disposed (or resolved, had it come first)", pending.Tile)
	}
	lfNoErrors(t, b)
}

// srcSwitchLogs takes the page's log after a switch of source: the old
// instance's fetches in flight are aborted by dispose (ERR_ABORTED, Firefox's NS_BINDING_ABORTED) and
// landblocks past the demo's land answer 404; anything else is an error.
func srcSwitchLogs(t *testing.T, b *lfBrowser) {
	t.Helper()
	aborted := 0
	for _, l := range b.logs() {
		switch {
		case strings.HasPrefix(l, "requestfailed: ") && (strings.HasSuffix(l, " net::ERR_ABORTED") || strings.HasSuffix(l, " NS_BINDING_ABORTED")): // Chromium's, Firefox's
			aborted++
		case strings.HasPrefix(l, "http 404 ") && strings.HasSuffix(strings.ToUpper(l), "FFFF"),
			strings.Contains(l, "ScriptProcessorNode is deprecated"), // oto's output node; Chromium's notice
			strings.HasPrefix(l, "error: Failed to load resource: the server responded with a status of 404"):
		case strings.HasPrefix(l, "error"), strings.HasPrefix(l, "pageerror"), strings.HasPrefix(l, "warning"),
			strings.HasPrefix(l, "requestfailed"), strings.HasPrefix(l, "http "):
			t.Errorf("page, switching source: %s", l)
		}
	}
	t.Logf("switching source aborted %d fetches of the old instance", aborted)
}

// TestPageSourceErrors: each failing source gets its message in the panel.
func TestPageSourceErrors(t *testing.T) {
	s := srcServers(t)
	_, w := site(t)
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
	portalOnly := httptest.NewServer(acdatsvc.New(acdatsvc.Store(w.Portal, nil), acdatsvc.Dat{}))
	t.Cleanup(portalOnly.Close)

	b := srcOpen(t)
	const river = "#0xA9B5002D/120,96,22.85"
	for _, c := range []struct{ name, server, api, hash, want string }{
		{"unreachable", deadURL, "acdatservice", river, "is unreachable: no answer from " + deadURL},
		{"no CORS", noCORS.URL, "acdatservice", river, "answers, but without CORS headers"},
		{"no cell records", portalOnly.URL, "acdatservice", river, "has the region but no cell records: landblock 0xA9B5FFFF is not there"},
		// Map coordinates need the landblock for their height: the move
		// itself fails.
		{"no cell records, map coordinates", portalOnly.URL, "acdatservice", "#42.1N,33.6E", "has the region but no cell records: landblock 0xA9B4FFFF is not there"},
		{"wrong api", s.emuURL, "", river, `has no region record 0x13000000 (404). Is it a dat server? If it is an acdatservice, choose "acdatservice"`},
	} {
		q := "?server=" + url.QueryEscape(c.server)
		if c.api != "" {
			q += "&api=" + c.api
		}
		start := time.Now()
		b.do("goto", "url", "about:blank") // a new document, not a hash change
		b.do("goto", "url", s.page+"/"+q+c.hash)
		b.waitFor(`document.getElementById("srcMsg").textContent !== ""`, 60*time.Second)
		msg := srcText(b, "srcMsg")
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: the panel says %q; want %q", c.name, msg, c.want)
		} else {
			t.Logf("%s (%v): %s", c.name, time.Since(start).Round(100*time.Millisecond), msg)
		}
		var visible bool
		b.eval(&visible, `document.getElementById("srcMsg").offsetHeight > 0`)
		if !visible {
			t.Errorf("%s: the message is not shown", c.name)
		}
	}
	b.logs() // the failed requests are the point here
}
