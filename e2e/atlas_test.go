package e2e

// Asheron's Atlas as it ships (issue 28): a model of the community's map as
// its components/Atlas/Dereth/Map.vue builds it, and the binding on it both
// ways a map maintainer would: the userscript with no settings but the
// server, and the page's own bindLeaflet with the start control, the zone
// layer and the captions (no L passed).

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"acambient/core/demo"
	"acambient/core/world"
)

// atlasPage models Atlas's map page. From Map.vue: a copy of L.CRS.Simple
// whose projection is a copy of L.Projection.LonLat bounded to the world
// (0–48960 m), a transformation of 256 px per world side at zoom 0, and
// infinite false; the map with maxBounds 4000 m past the world's edges,
// maxBoundsViscosity 1, no zoom or attribution control of Leaflet's
// defaults but a zoom control bottom right, zooms 0–11; a pane at z-index
// 550 with a canvas renderer drawing the landblock grid (polylines, not
// interactive); the container's background #242b4d. From the page and
// layout (pages/[...locationPath].vue): an overlay 10 px in from the
// viewport's edges that takes no pointer events but for its panels, a
// 320 px search panel at the top left and a control bar along the top right
// (its row takes the pointer across its whole width). From Tailwind's
// preflight (Nuxt UI): buttons without background or border, inheriting the
// page's colour; lists without bullets or padding; box-sizing border-box
// and zero borders everywhere. A second map in Leaflet's default CRS (an
// inset) must be left alone. ?bind binds the map from the page itself.
const atlasPage = `<!doctype html>
<html lang="en">
<meta charset="utf-8"><title>a map of Dereth, as Asheron's Atlas builds it</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="https://unpkg.com/leaflet@1.9.4/dist/leaflet.css">
<script src="https://unpkg.com/leaflet@1.9.4/dist/leaflet.js"></script>
<style>
  /* A Tailwind-like preflight */
  *, ::before, ::after { box-sizing: border-box; border-width: 0; border-style: solid; border-color: #e5e7eb }
  html { line-height: 1.5; font-family: ui-sans-serif, system-ui, sans-serif; color: #000 }
  body { margin: 0; line-height: inherit }
  button, input, select, textarea { font-family: inherit; font-size: 100%; font-weight: inherit; line-height: inherit; color: inherit; margin: 0; padding: 0 }
  button, [type="button"] { -webkit-appearance: button; background-color: transparent; background-image: none }
  ol, ul, menu { list-style: none; margin: 0; padding: 0 }
  p, h1, h2 { margin: 0 }
  img, svg, video, canvas { display: block; vertical-align: middle }
  img, video { max-width: 100%; height: auto }
  /* The page */
  #atlas { height: 100vh; position: relative }
  #map { height: 100%; z-index: 30 }
  #dereth-map { height: 100%; z-index: 50; position: relative }
  #map-container { height: 100%; background: #242b4d }
  #overlay { position: absolute; inset: 10px; z-index: 50; pointer-events: none }
  #overlay .row { height: 100%; display: flex; flex-direction: row }
  #overlay .search { width: 320px }
  #overlay .search .box { pointer-events: auto; background: #fff; border-radius: 6px; padding: 8px 12px; height: 40px }
  #overlay .bar { flex: 1 }
  #overlay .controlbar { pointer-events: auto; display: flex; flex-direction: row; justify-content: flex-end; gap: 8px }
  #overlay .controlbar button { background: #fff; border-radius: 6px; padding: 6px 12px; font-size: 14px; box-shadow: 0 1px 2px #0003 }
  #inset { position: absolute; z-index: 40; left: 50%; bottom: 10px; width: 120px; height: 80px }
</style>
<div id="atlas">
  <div id="map"><div id="dereth-map"><div id="map-container"></div></div></div>
  <div id="overlay"><div class="row">
    <div class="search"><div class="box"><input placeholder="Search Dereth"></div></div>
    <div class="bar"><div class="controlbar"><button type="button">Landblock Grid</button><button type="button">Layers</button></div></div>
  </div></div>
</div>
<div id="inset"></div>
<script>
  var inset = L.map("inset", { zoomControl: false, attributionControl: false }).setView([0, 0], 1);
  var size = 48960, pad = 4000, k = 256 / size;
  var projection = L.extend({}, L.Projection.LonLat, { bounds: L.bounds([[0, 0], [size, size]]) });
  var crs = L.extend({}, L.CRS.Simple, { projection: projection, transformation: new L.Transformation(k, 0, -k, 0), infinite: false });
  var themap = L.map("map-container", { crs: crs, minZoom: 0, maxZoom: 11, boxZoom: false, zoomControl: false,
    attributionControl: false, maxBoundsViscosity: 1, maxBounds: [[-pad, -pad], [size + pad, size + pad]] });
  L.control.zoom({ position: "bottomright" }).addTo(themap);
  themap.createPane("canvasGrid");
  themap.getPane("canvasGrid").style.zIndex = 550;
  var grid = L.canvas({ pane: "canvasGrid" });
  var line = { color: "#000000", weight: 0.8, pane: "canvasGrid", renderer: grid, interactive: false };
  for (var i = 1; i < 255; i++) {
    L.polyline([[0, i * 192], [size, i * 192]], line).addTo(themap);
    L.polyline([[i * 192, 0], [i * 192, size]], line).addTo(themap);
  }
  themap.setView([size / 2, size / 2], 4);
  window.map = themap;
</script>
<script type="module">
  const q = new URLSearchParams(location.search);
  if (q.has("bind")) {
    const server = q.get("server");
    const { AmbientAudio } = await import(server + "/ambient.js");
    const { bindLeaflet } = await import(server + "/leaflet-ambient.js");
    const amb = await AmbientAudio.load({ server });
    window.unbind = bindLeaflet(themap, amb, { start: true, zones: server + "/zones.json", captions: true });
    window.ambient = amb;
  }
</script>
`

// atlasPanels selects the app's panels over the map.
const atlasPanels = "#overlay .search .box, #overlay .controlbar"

// TestAtlasModel: on atlasPage, in each way of binding, the map is bound
// with no setting of the map's; a real click starts the audio and the
// river and the desert sound as gather says; every control of the
// project's is legible (WCAG contrast ≥ 4.5:1 between each of its texts and
// what lies behind it) and lies clear of the app's panels, a click at it
// reaching it; and after each of 12 quick 8-step pointer paths over the
// canvas grid the listener stands in the cell under the pointer.
func TestAtlasModel(t *testing.T) {
	t.Run("userscript", func(t *testing.T) {
		forEngines(t, leafletEngines, func(t *testing.T, spec browserSpec) {
			datURL, pageURL := lfServers(t, map[string]string{"atlas.html": atlasPage})
			b := lfOpen(t, spec, fmt.Sprintf("window.acAmbientConfig = { server: %q };", datURL), rmUserscript(t))
			b.do("goto", "url", pageURL+"/extra/atlas.html")
			b.waitFor(`window.acAmbient && window.acAmbient.amb`, 60*time.Second)
			var same bool
			b.eval(&same, `window.acAmbient.map === window.themap`)
			if !same {
				t.Fatal("the userscript bound another map than Atlas's")
			}
			atlasChecks(t, b, "window.acAmbient.amb", []string{".ac-ambient-button"})
			logs := b.logs()
			rmOneLine(t, logs, "info: ambient.user.js: not binding the map in div#inset: its CRS wraps longitude or latitude")
			lfNoErrorsIn(t, logs)
		})
	})
	t.Run("bindLeaflet", func(t *testing.T) {
		forEngines(t, leafletEngines, func(t *testing.T, spec browserSpec) {
			datURL, pageURL := lfServers(t, map[string]string{"atlas.html": atlasPage})
			b := lfOpen(t, spec)
			b.do("goto", "url", pageURL+"/extra/atlas.html?bind&server="+datURL)
			b.waitFor(`window.ambient && window.unbind && document.querySelector(".ac-zones") && document.querySelector(".ac-zones").dataset.cells`, 60*time.Second)
			atlasChecks(t, b, "window.ambient", []string{".ac-ambient-button", ".ac-zones", ".ac-captions"})
			logs := b.logs()
			// Under the control bar's Layers button, its row's right end.
			rmOneLine(t, logs, "info: leaflet-ambient.js: the sound-zone control in the topright corner is under button; moved it to bottomright")
			lfNoErrorsIn(t, logs)
			b.eval(nil, `unbind()`)
			if n := lfCount(b, ".ac-ambient-button, .ac-zones, .ac-captions, img.ac-zones-image"); n != 0 {
				t.Errorf("after unbind %d of the binding's controls and layers remain", n)
			}
		})
	})
}

// atlasChecks plays, then checks the controls and the pointer paths.
func atlasChecks(t *testing.T, b *lfBrowser, amb string, controls []string) {
	t.Helper()
	b.waitFor(`!`+lfQ(lfStartButton)+`.disabled`, 30*time.Second)
	// The controls lie where a click reaches them before the first click.
	atlasClear(t, b, controls)
	lfRecordSends(b, amb)
	rmPlay(t, b, amb, lfStartButton, "on", nil)
	for _, c := range controls {
		b.waitFor(`(() => { const r = document.querySelector(`+lfJS(c)+`).getBoundingClientRect(); return r.width > 0 && r.height > 0; })()`, 30*time.Second)
	}
	atlasClear(t, b, controls) // the captions have appeared, the legend has grown
	atlasContrast(t, b, controls)
	atlasPaths(t, b, amb)
}

// atlasClear: each control lies clear of the app's panels (their boxes do
// not meet), and the element at its centre and at the centre of each of its
// clickable parts is the control.
func atlasClear(t *testing.T, b *lfBrowser, controls []string) {
	t.Helper()
	for _, c := range controls {
		var got struct {
			Shown          bool
			Under, Covered string
		}
		b.eval(&got, `(() => { const host = document.querySelector(`+lfJS(c)+`), r = host.getBoundingClientRect();
			if (!(r.width > 0 && r.height > 0)) return { Shown: false };
			const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
			const under = [...document.querySelectorAll(`+lfJS(atlasPanels)+`)].filter((p) => meets(r, p.getBoundingClientRect()));
			const pts = [r, ...[...host.shadowRoot.querySelectorAll("[data-hit]")].map((e) => e.getBoundingClientRect())];
			const covered = pts.map((q) => document.elementFromPoint(q.left + q.width / 2, q.top + q.height / 2)).filter((e) => !e || !host.contains(e));
			const name = (e) => e ? e.tagName.toLowerCase() + (e.className ? "." + String(e.className).split(" ")[0] : "") : "nothing";
			return { Shown: true, Under: under.map(name).join(", "), Covered: covered.map(name).join(", ") }; })()`)
		if !got.Shown {
			continue // the captions, before the first
		}
		if got.Under != "" || got.Covered != "" {
			t.Errorf("the control %s lies under the app's panels (%q); a click at it reaches %q", c, got.Under, got.Covered)
		}
	}
}

// atlasContrast measures, for every text of each control, the WCAG 2
// contrast ratio between its colour and what lies behind it: the
// backgrounds of its ancestors (through the shadow root to the host and on
// to the map's container) composited over white. Each must be ≥ 4.5.
func atlasContrast(t *testing.T, b *lfBrowser, controls []string) {
	t.Helper()
	for _, c := range controls {
		var texts []struct {
			Text  string
			Ratio float64
		}
		b.eval(&texts, `(() => { const host = document.querySelector(`+lfJS(c)+`), root = host.shadowRoot || host;
			const rgba = (s) => { const m = /rgba?\(([^)]+)\)/.exec(s); if (!m) return [0, 0, 0, 0];
				const v = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
			const over = (top, under) => { const a = top[3] + under[3] * (1 - top[3]); if (a === 0) return [0, 0, 0, 0];
				return [0, 1, 2].map((i) => (top[i] * top[3] + under[i] * under[3] * (1 - top[3])) / a).concat([a]); };
			const up = (e) => e.parentElement || (e.getRootNode() instanceof ShadowRoot ? e.getRootNode().host : null);
			const behind = (e) => { const layers = []; for (let x = e; x; x = up(x)) layers.push(rgba(getComputedStyle(x).backgroundColor));
				let c = [255, 255, 255, 1]; for (const l of layers.reverse()) c = over(l, c); return c; };
			const lum = (c) => { const [r, g, b] = c.slice(0, 3).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
				return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
			const out = [], walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
			for (let n = walk.nextNode(); n; n = walk.nextNode()) {
				const e = n.parentElement;
				if (!n.textContent.trim() || !e || e.closest("style") || !(e.getClientRects().length > 0)) continue;
				const bg = behind(e), fg = over(rgba(getComputedStyle(e).color), bg);
				const [l1, l2] = [lum(fg), lum(bg)].sort((a, b) => b - a);
				out.push({ Text: n.textContent.trim(), Ratio: (l1 + 0.05) / (l2 + 0.05) });
			}
			return out; })()`)
		if len(texts) == 0 {
			t.Errorf("the control %s shows no text", c)
		}
		least := math.Inf(1)
		for _, x := range texts {
			least = math.Min(least, x.Ratio)
			if x.Ratio < 4.5 {
				t.Errorf("the control %s: %q has contrast %.2f:1, want ≥ 4.5:1", c, x.Text, x.Ratio)
			}
		}
		t.Logf("the control %s: %d texts, the least contrast %.1f:1", c, len(texts), least)
	}
}

// atlasPaths moves the pointer along 12 quick paths of 8 steps each
// (driver input, as fast as it goes: far under the canvas renderer's 32 ms)
// between points over the demo world, away from the panels and controls,
// at 0.67 px a metre (zoom 7: a land cell is 16 px). After each, the
// listener must come to the cell under the pointer, as the map computes it.
func atlasPaths(t *testing.T, b *lfBrowser, amb string) {
	t.Helper()
	cx := float64(demo.BlockX0+demo.BlocksX/2) * world.BlockLength
	cy := float64(demo.BlockY0+demo.BlocksY/2) * world.BlockLength
	b.eval(nil, fmt.Sprintf(`map.setView([%v, %v], 7, { animate: false }); null`, cy, cx))
	var box struct{ X, Y, W, H float64 }
	b.eval(&box, `(() => { const r = map.getContainer().getBoundingClientRect(); return { X: r.x, Y: r.y, W: r.width, H: r.height }; })()`)
	// A fixed walk of targets over the middle of the view: 0.3–0.7 of its width, 0.25–0.7 of its height.
	seed := uint32(28)
	next := func() float64 {
		seed = seed*1664525 + 1013904223
		return float64(seed>>8) / float64(1<<24)
	}
	ok, lastCell := 0, uint32(0)
	for i := 0; i < 12; i++ {
		var x, y float64
		var at struct {
			Lat, Lng float64
			Over     bool
		}
		var cell uint32
		for {
			x = math.Round(box.X + box.W*(0.3+0.4*next()))
			y = math.Round(box.Y + box.H*(0.25+0.45*next()))
			b.eval(&at, fmt.Sprintf(`(() => { const r = map.getContainer().getBoundingClientRect(), ll = map.containerPointToLatLng([%v - r.x, %v - r.y]);
				const e = document.elementFromPoint(%v, %v);
				return { Lat: ll.lat, Lng: ll.lng, Over: !!e && map.getContainer().contains(e) && !e.closest(".leaflet-control") }; })()`, x, y, x, y))
			p, err := world.FromGlobal(at.Lng, at.Lat, 0)
			if err != nil {
				t.Fatal(err)
			}
			if cell = p.ObjCellID; at.Over && cell != lastCell {
				break
			}
		}
		lastCell = cell
		b.do("move", "x", x, "y", y, "steps", 8)
		if err := b.call(nil, lfCmd("waitFor", []any{"expr", rmCellIs(amb, cell), "timeoutMs", 5000})); err != nil {
			var got any
			b.eval(&got, amb+`.state().player`)
			t.Errorf("path %d: the pointer ended at (%v, %v) px over 0x%08X; the listener stays at %v", i+1, x, y, cell, got)
			continue
		}
		ok++
	}
	t.Logf("pointer paths: %d of 12 ended with the listener in the pointer's cell", ok)
	if ok != 12 {
		t.Errorf("%d of 12 quick pointer paths ended with the listener in the pointer's cell, want 12", ok)
	}
}

// rmOneLine fails unless exactly one of the page's console lines starts with want.
func rmOneLine(t *testing.T, logs []string, want string) {
	t.Helper()
	n := 0
	for _, l := range logs {
		if strings.HasPrefix(l, want) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d console lines %q, want 1; the page's log:\n%s", n, want, strings.Join(logs, "\n"))
	}
}
