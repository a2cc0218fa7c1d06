package e2e

// The demo page as the README promises it (issue 22.5), on one page load:
// the 3×3 ring, the cells' weights and the voices drawn on the map where
// the engine put them; the instance and voice panels saying what state()
// holds; clicking the map, dragging the marker and walking with WASD at
// running speed move the player there; the URL following every move and a
// link (the hash) moving it; the landmark buttons and the Go box in each
// form it takes, and the error a bad position shows.

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"acambient/core/world"
)

// The map's colours (www/page/mapcanvas.js).
var (
	ringGold  = rgb{240, 180, 76} // the ring's dashes and the marker: #f0b44c
	cellRGB   = rgb{255, 140, 40} // a cell's weight: rgba(255, 140, 40, 0.16 + 0.64·√w)
	voiceBlue = rgb{92, 200, 255} // a placed voice: rgba(92, 200, 255, lvl)
	runSpeed  = 12.0              // m/s: movement.js RUN, the README's "running speed"
	dirNames  = [9]string{"here", "N", "S", "E", "W", "NW", "SW", "NE", "SE"}
)

// cellWeightAlpha is the opacity mapcanvas.js paints a cell of weight w at.
func cellWeightAlpha(w float64) float64 { return 0.16 + 0.64*math.Sqrt(w) }

// voiceAlpha is the opacity of a voice of whole dB db on the map.
func voiceAlpha(db int) float64 { return math.Max(0.15, math.Min(1, float64(db+50)/50)) }

// landCell is a land cell's landblock and its index (8·cx + cy) from its
// objcell id, and its south-west corner in global metres.
func landCell(id uint32) (bx, by, index int, X, Y float64) {
	bx, by, index = int(id>>24), int(id>>16&0xFF), int(id&0xFFFF)-1
	return bx, by, index, float64(bx)*world.BlockLength + float64(index/8)*24, float64(by)*world.BlockLength + float64(index%8)*24
}

func TestPageMap(t *testing.T) { pageTest(t, pageMap) }

func pageMap(t *testing.T, spec browserSpec) {
	var stb, sound int
	url := pageServer(t, callsWorld(t, &stb, &sound))
	pos, _ := landmark(t, "forest")
	b := pageOpen(t, spec, url, pos, false)

	// ---- the overlay before the audio: cells and ring
	s := snapshot(t, b)
	H := s.img.Bounds().Dy()
	// The forest is at the demo world's north-east corner: the landblock
	// lines are read along the bottom and the left edge.
	v := calibrateIn(t, s, H-80, H-6, 4, 60)
	tiles := pageTiles(t, b, s.State)
	// under is the map at (X, Y) under the ring, voices and marker: the
	// tile's colour, under orange where the cell weighted the rebuild; ok
	// false off the tiles.
	under := func(X, Y float64) (rgb, bool) {
		id := cellID(X, Y)
		bx, by, index, _, _ := landCell(id)
		tile := tiles[[2]int{bx, by}]
		if tile == nil {
			return rgb{}, false
		}
		for _, cw := range s.State.Cells {
			if cw.ObjcellID == id {
				return tile[index].over(cellRGB, cellWeightAlpha(cw.Weight)), true
			}
		}
		return tile[index], true
	}
	px, py := v.screen(s.State.Where.X, s.State.Where.Y)
	pbx, pby := math.Floor(s.State.Where.X/world.BlockLength), math.Floor(s.State.Where.Y/world.BlockLength)
	// clear: a point this far from what else the map draws there (the
	// marker and its wedge, the hearing circle, the ring's lines, and the
	// lines and rings of the voices of the state shown, s).
	clear := func(x, y float64, own int) bool {
		d := math.Hypot(x-px, y-py)
		if d < 12 || d < 38 && math.Abs(math.Atan2(x-px, py-y)) < 0.7 || math.Abs(d-120*v.Scale) < 4 {
			return false
		}
		for i, vc := range s.State.Voices {
			if vc.Dir == 0 {
				if d < 26 {
					return false
				}
				continue
			}
			h := dirDegrees[vc.Dir] * math.Pi / 180
			ex, ey := v.screen(s.State.Where.X+math.Sin(h)*vc.Dist, s.State.Where.Y+math.Cos(h)*vc.Dist)
			if segmentDist(x, y, px, py, ex, ey) < 1.5 || i != own && math.Hypot(x-ex, y-ey) < 8 {
				return false // on a voice's line, or another voice's disc
			}
		}
		for k := -1.0; k <= 2; k++ {
			ex, _ := v.screen((pbx+k)*world.BlockLength, 0)
			_, ey := v.screen(0, (pby+k)*world.BlockLength)
			if math.Abs(x-ex) < 4 || math.Abs(y-ey) < 4 {
				return false
			}
		}
		return true
	}
	if len(s.State.Cells) < 20 {
		t.Fatalf("%d contributing cells at the forest; want a ring's worth", len(s.State.Cells))
	}
	checked := 0
	for _, cw := range s.State.Cells {
		_, _, _, X, Y := landCell(cw.ObjcellID)
		x, y := v.screen(X+12, Y+12)
		if !clear(x, y, -1) {
			continue
		}
		checked++
		want, _ := under(X+12, Y+12)
		if got := s.at(int(x), int(y)); got.dist(want) > 4 {
			t.Errorf("cell 0x%08X of weight %.3f: the map shows %v at its centre; want its tile's colour under orange at %.3f: %v",
				cw.ObjcellID, cw.Weight, got, cellWeightAlpha(cw.Weight), want)
		}
	}
	// A cell the rebuild did not weight shows its tile alone: two blocks west of the ring.
	{
		X, Y := (pbx-2)*world.BlockLength+12, (pby)*world.BlockLength+12
		x, y := v.screen(X, Y)
		want, ok := under(X, Y)
		if got := s.at(int(x), int(y)); !ok || got.dist(want) > 4 || want.dist(tiles[[2]int{int(pbx) - 2, int(pby)}][0]) > 0 {
			t.Errorf("outside the ring the map shows %v; want the tile's own %v", got, want)
		}
	}
	if checked < 10 {
		t.Errorf("only %d cells clear of the ring and marker to check", checked)
	}
	// The ring: the 3×3 landblocks' outline, dashed (6 on, 4 off): along
	// each edge about 60% gold, and 12 px outside it none.
	x0, y0 := v.screen((pbx-1)*world.BlockLength, (pby+2)*world.BlockLength)
	x1, y1 := v.screen((pbx+2)*world.BlockLength, (pby-1)*world.BlockLength)
	for _, e := range []struct {
		name               string
		horizontal         bool
		at, from, to, away float64
	}{
		{"north", true, y0, x0, x1, -12}, {"south", true, y1, x0, x1, 12},
		{"west", false, x0, y0, y1, -12}, {"east", false, x1, y0, y1, 12},
	} {
		on := func(off float64) float64 {
			n, gold := 0, 0
			lim := float64(H)
			if e.horizontal {
				lim = float64(s.img.Bounds().Dx())
			}
			for u := e.from + 8; u <= e.to-8; u++ {
				if u < 0 || u >= lim {
					continue
				}
				n++
				for d := -2.0; d <= 2; d++ {
					x, y := u, e.at+off+d
					if !e.horizontal {
						x, y = e.at+off+d, u
					}
					if s.at(int(x), int(y)).dist(ringGold) < 80 {
						gold++
						break
					}
				}
			}
			return float64(gold) / float64(max(n, 1))
		}
		f, g := on(0), on(e.away)
		t.Logf("the ring's %s edge: %.0f%% gold along it, %.0f%% 12 px outside", e.name, 100*f, 100*g)
		if f < 0.4 || f > 0.8 || g > 0.05 {
			t.Errorf("the ring's %s edge: %.0f%% gold along it (want a dashed line: 40–80%%), %.0f%% 12 px outside (want none)", e.name, 100*f, 100*g)
		}
	}
	checkPanels(t, b)

	// ---- the audio, and the voices where the engine placed them
	lfClickElement(b, "#overlay")
	b.waitFor(`window.__pt.ctx && window.__pt.ctx.state === "running" && document.getElementById("overlay").classList.contains("hidden")`, 20*time.Second)
	// Until a placed voice's disc lies clear of the rest: its pixel 2 px
	// beside the line that leads to it is the map under blue at its level.
	// A snapshot can fall between a state event and the frame that draws
	// it (a fading voice's level moves on between them), so a disc unlike
	// its voice is looked at again in the next snapshot; only a disc that
	// never matches fails.
	voices := 0
	mismatch := ""
	until(t, 120*time.Second, func() string {
		if mismatch != "" {
			return mismatch
		}
		return "no placed voice's disc clear of the ring and marker"
	}, func() bool {
		b.waitFor(`window.__pt.state && window.__pt.state.voices.some((v) => v.dir > 0)`, 60*time.Second)
		s = snapshot(t, b)
		for i, vc := range s.State.Voices {
			if vc.Dir == 0 {
				continue
			}
			h := dirDegrees[vc.Dir] * math.Pi / 180
			X, Y := s.State.Where.X+math.Sin(h)*vc.Dist, s.State.Where.Y+math.Cos(h)*vc.Dist
			x, y := v.screen(X, Y)
			x, y = x+2*math.Cos(h), y+2*math.Sin(h) // across the line (screen y runs south)
			X, Y = v.world(x, y)
			base, ok := under(X, Y)
			if !clear(x, y, i) || !ok {
				continue
			}
			if got, want := s.at(int(x), int(y)), base.over(voiceBlue, voiceAlpha(vc.DB)); got.dist(want) > 4 {
				mismatch = fmt.Sprintf("voice %s (band %d, %.1f m, %d dB): the map shows %v where it was placed; want a blue disc at %.2f over the map: %v",
					vc.Wave, vc.Dir, vc.Dist, vc.DB, got, voiceAlpha(vc.DB), want)
				return false
			} else {
				voices++
				t.Logf("voice %s (band %d, %.1f m, %d dB) drawn where the engine placed it: %v", vc.Wave, vc.Dir, vc.Dist, vc.DB, got)
			}
		}
		if voices > 0 {
			checkPanels(t, b)
		}
		return voices > 0
	})

	// ---- moving: click, drag, walk; the URL follows each
	var c struct{ X, Y float64 }
	b.eval(&c, `(() => { const r = document.getElementById("map").getBoundingClientRect(); return { X: r.x, Y: r.y }; })()`)
	// moved waits until the page has the player at global (X, Y) within
	// tol, as the URL says (the engine's answer to the page's last move,
	// local metres to 0.01; state().where is the last rebuild's), and the
	// panel's global line shows it; it returns the page's state.
	moved := func(what string, X, Y, tol float64) pageState {
		t.Helper()
		var r struct {
			State  pageState `json:"state"`
			Hash   string    `json:"hash"`
			Global string    `json:"global"`
		}
		var gX, gY float64
		until(t, 30*time.Second, func() string {
			return fmt.Sprintf("%s: the URL says %s (%.2f, %.2f); want %.2f, %.2f", what, r.Hash, gX, gY, X, Y)
		}, func() bool {
			b.eval(&r, `(async () => { await window.__pt.settled(); return { state: window.ambient.state(),
				hash: decodeURIComponent(location.hash.slice(1)), global: document.getElementById("posGlobal").textContent }; })()`)
			gX, gY, _ = landmarkGlobal(t, r.Hash)
			return math.Abs(gX-X) <= tol+0.005 && math.Abs(gY-Y) <= tol+0.005
		})
		if want := fmt.Sprintf("%.1f, %.1f m", gX, gY); r.Global != want {
			t.Errorf("%s: the panel says %q; the URL %s (%s)", what, r.Global, r.Hash, want)
		}
		r.State.Where.X, r.State.Where.Y = gX, gY
		return r.State
	}

	// Click 150 px west and 100 px north of the marker.
	cx, cy := px-150, py-100
	tX, tY := v.world(cx, cy)
	b.do("click", "x", c.X+cx, "y", c.Y+cy)
	st := moved("a click on the map", tX, tY, 1.5/v.Scale)
	t.Logf("clicked (%.0f, %.0f) px: the player at %.2f, %.2f m (the map's %.2f, %.2f)", cx, cy, st.Where.X, st.Where.Y, tX, tY)

	// Drag the marker 80 px east and 60 px south; the map does not pan.
	mx, my := v.screen(st.Where.X, st.Where.Y)
	b.do("mouseDown", "x", c.X+mx, "y", c.Y+my)
	b.do("move", "x", c.X+mx+80, "y", c.Y+my+60, "steps", 12)
	b.do("mouseUp", "x", c.X+mx+80, "y", c.Y+my+60)
	dX, dY := v.world(mx+80, my+60)
	st = moved("a drag of the marker", dX, dY, 1.5/v.Scale)
	s = snapshot(t, b)
	if gx, gy, ok := s.marker(mx+80, my+60, 6); !ok {
		t.Errorf("after the drag no marker within 6 px of where it was dropped (%.0f, %.0f): the map panned or the player did not move", mx+80, my+60)
	} else {
		t.Logf("dragged the marker to (%.0f, %.0f) px: drawn at (%.1f, %.1f), the player at %.2f, %.2f m", mx+80, my+60, gx, gy, st.Where.X, st.Where.Y)
	}

	// Walk north with W, then west with A, each for a second of the page's frames.
	for _, k := range []struct {
		key    string
		dx, dy float64
	}{{"KeyW", 0, 1}, {"KeyA", -1, 0}} {
		from := st.Where
		held0 := heldSeconds(b, k.key)
		b.do("keyDown", "key", k.key)
		b.waitFor(`(window.__pt.held[`+lfJS(k.key)+`] || 0) >= `+fmt.Sprint(held0+1), 20*time.Second)
		b.do("keyUp", "key", k.key)
		b.eval(nil, `window.__pt.settled()`)
		held := heldSeconds(b, k.key) - held0
		st = moved("walking with "+k.key, from.X+k.dx*runSpeed*held, from.Y+k.dy*runSpeed*held, 0.05)
		t.Logf("%s held %.3f s of the page's frames: moved %.3f, %.3f m (%.2f m/s)", k.key, held, st.Where.X-from.X, st.Where.Y-from.Y,
			math.Hypot(st.Where.X-from.X, st.Where.Y-from.Y)/held)
	}

	// A landmark's button.
	mpos, _ := landmark(t, "meadow")
	lfClickElement(b, `#landmarks button[data-name="meadow"]`)
	mX0, mY0, tol := landmarkGlobal(t, mpos)
	moved("the meadow's button", mX0, mY0, tol)
	var on []string
	b.eval(&on, `[...document.querySelectorAll("#landmarks button.on")].map((e) => e.dataset.name)`)
	if len(on) != 1 || on[0] != "meadow" {
		t.Errorf("at the meadow the landmark buttons marked are %v; want [meadow]", on)
	}

	// A link: the hash names the river.
	rpos, _ := landmark(t, "river")
	b.eval(nil, `location.hash = `+lfJS(rpos))
	rX, rY, _ := landmarkGlobal(t, rpos)
	moved("a link to the river", rX, rY, tol)
	// The hash above is the test's own: the engine must have rebuilt there.
	var w struct {
		Cell string  `json:"objcellId"`
		X    float64 `json:"X"`
		Y    float64 `json:"Y"`
	}
	until(t, 30*time.Second, func() string { return fmt.Sprintf("a link to the river: the engine rebuilt last at %+v", w) }, func() bool {
		b.eval(&w, `window.ambient.state().where`)
		return w.Cell == rpos[:10] && math.Abs(w.X-rX) < 0.01 && math.Abs(w.Y-rY) < 0.01
	})

	// The Go box, in each form it takes.
	gotoBox := func(text string) {
		t.Helper()
		b.eval(nil, `document.getElementById("gotoInput").value = `+lfJS(text))
		lfClickElement(b, `#gotoForm button`)
	}
	hX, hY, _ := landmarkGlobal(t, landmarkPos(t, "hills"))
	hills := landmarkPos(t, "hills")
	cell, rest, _ := strings.Cut(hills, "/")
	xyz := strings.Split(rest, ",")
	gotoBox("Your location is: " + cell + " [" + strings.Join(xyz, " ") + "] 1 0 0 0")
	moved("a pasted /loc line", hX, hY, tol)
	var shown string
	b.eval(&shown, `document.getElementById("posMap").textContent`)
	mX, mY, _ := landmarkGlobal(t, landmarkPos(t, "desert"))
	gotoBox(landmarkPos(t, "desert"))
	moved("an objcell position", mX, mY, tol)
	gotoBox(shown) // the hills' map coordinates as the panel showed them (0.1 of a map unit: 24 m)
	st = moved("map coordinates "+shown, hX, hY, 24)

	// A bad position: the error under the box, and the player stays.
	before := st.Where
	gotoBox("0xA9B4001F/72,banana")
	var msg string
	b.waitFor(`document.getElementById("gotoErr").textContent !== ""`, 20*time.Second)
	b.eval(&msg, `document.getElementById("gotoErr").textContent`)
	st = moved("a bad position", before.X, before.Y, 0)
	if !strings.Contains(msg, "banana") && !strings.Contains(strings.ToLower(msg), "position") {
		t.Errorf("a bad position shows %q under the Go box; want it to name the position", msg)
	}
	t.Logf("a bad position shows %q", msg)
	gotoBox(landmarkPos(t, "desert"))
	moved("a good position after a bad one", mX, mY, 0.01)
	b.eval(&msg, `document.getElementById("gotoErr").textContent`)
	if msg != "" {
		t.Errorf("after a good move the Go box still says %q", msg)
	}
	lfNoErrors(t, b)
}

// segmentDist is the distance of (x, y) from the segment (x0, y0)–(x1, y1).
func segmentDist(x, y, x0, y0, x1, y1 float64) float64 {
	dx, dy := x1-x0, y1-y0
	u := 0.0
	if l := dx*dx + dy*dy; l > 0 {
		u = math.Max(0, math.Min(1, ((x-x0)*dx+(y-y0)*dy)/l))
	}
	return math.Hypot(x-x0-u*dx, y-y0-u*dy)
}

// landmarkPos is a landmark's POS.
func landmarkPos(t *testing.T, name string) string {
	t.Helper()
	p, _ := landmark(t, name)
	return p
}

// landmarkGlobal is a landmark POS's global metres, and a tolerance for
// moved (a hundredth of a metre, the URL's precision).
func landmarkGlobal(t *testing.T, pos string) (X, Y, tol float64) {
	t.Helper()
	var id uint32
	var x, y, z float64
	if _, err := fmt.Sscanf(strings.ReplaceAll(strings.ReplaceAll(pos, "/", " "), ",", " "), "0x%X %g %g %g", &id, &x, &y, &z); err != nil {
		t.Fatalf("landmark %q: %v", pos, err)
	}
	return float64(id>>24)*world.BlockLength + x, float64(id>>16&0xFF)*world.BlockLength + y, 0.01
}

// cellID is the objcell id of the land cell at global metres (X, Y).
func cellID(X, Y float64) uint32 {
	bx, by := uint32(X/world.BlockLength), uint32(Y/world.BlockLength)
	cx, cy := uint32((X-float64(bx)*world.BlockLength)/24), uint32((Y-float64(by)*world.BlockLength)/24)
	return bx<<24 | by<<16 | (cx*8 + cy + 1)
}

// pageTiles are the map tiles (64 colours, 8·cx + cy) of the landblocks
// within two of the player's, from the instance.
func pageTiles(t *testing.T, b *lfBrowser, st pageState) map[[2]int][]rgb {
	t.Helper()
	var raw []struct {
		BX     int   `json:"bx"`
		BY     int   `json:"by"`
		Colors []int `json:"colors"`
	}
	b.eval(&raw, fmt.Sprintf(`(async () => { const out = [];
		for (let dx = -2; dx <= 2; dx++) for (let dy = -2; dy <= 2; dy++) {
			const t = await window.ambient.tile(%d + dx, %d + dy); if (t) out.push({ bx: t.bx, by: t.by, colors: t.colors }); }
		return out; })()`, int(st.Where.X/world.BlockLength), int(st.Where.Y/world.BlockLength)))
	out := map[[2]int][]rgb{}
	for _, r := range raw {
		cs := make([]rgb, len(r.Colors))
		for i, c := range r.Colors {
			cs[i] = rgb{float64(c >> 16), float64(c >> 8 & 255), float64(c & 255)}
		}
		out[[2]int{r.BX, r.BY}] = cs
	}
	return out
}

// checkPanels: the instance table has a row for every instance of the
// page's latest state, with its STB, sound, share and chance or volume as
// state() gives them, and the voice list an entry for every voice with its
// wave, dB, pan and placement.
func checkPanels(t *testing.T, b *lfBrowser) {
	t.Helper()
	var r struct {
		State   pageState  `json:"state"`
		Rows    [][]string `json:"rows"`
		Voices  []string   `json:"voices"`
		Summary string     `json:"summary"`
	}
	b.eval(&r, `({ state: window.__pt.state,
		rows: [...document.querySelectorAll("#instances tbody tr")].map((tr) => [...tr.cells].map((c) => c.textContent)),
		voices: [...document.querySelectorAll("#voices li .top")].map((e) => e.textContent),
		summary: document.getElementById("instSummary").textContent })`)
	st := r.State
	if len(st.Sounds) == 0 {
		t.Fatalf("the page's state has no instances")
	}
	if len(r.Rows) != len(st.Sounds) {
		t.Errorf("the instance table has %d rows; the state %d instances", len(r.Rows), len(st.Sounds))
	}
	for i, s := range st.Sounds {
		kind := "rand"
		val := fmt.Sprintf("%.1f%%", s.PlayChance*100)
		if s.Continuous {
			kind, val = "loop", fmt.Sprintf("vol %.3f", s.CurrentVolume)
		}
		want := []string{fmt.Sprintf("%s %d %s", s.STBID, s.SoundIndex, kind), fmt.Sprintf("%.1f%%", s.Share*100), val}
		found := false
		for _, row := range r.Rows {
			if len(row) == 5 && row[0] == want[0] && row[2] == want[1] && row[3] == want[2] {
				found = true
				if next := st.Next[i]; s.SoundCount > 0 && next >= 0 && row[4] != fmt.Sprintf("%.1f s", math.Max(0, next-st.Time)) {
					t.Errorf("instance %s: next shown %q; the state says %.1f s", want[0], row[4], next-st.Time)
				}
			}
		}
		if !found {
			t.Errorf("no instance row reads %q; the rows: %q", want, r.Rows)
		}
	}
	live := 0
	for _, s := range st.Sounds {
		if s.SoundCount > 0 {
			live++
		}
	}
	if want := fmt.Sprintf("%d live of %d · %d cells · total %.3f", live, st.Held, st.Contributing, st.TotalSoundCount); r.Summary != want {
		t.Errorf("the instances' summary reads %q; want %q", r.Summary, want)
	}
	if len(r.Voices) != len(st.Voices) {
		t.Errorf("the voice list has %d entries; the state %d voices", len(r.Voices), len(st.Voices))
	}
	for _, vc := range st.Voices {
		pan := "C"
		if vc.Pan > 0 {
			pan = fmt.Sprintf("R%d", vc.Pan)
		} else if vc.Pan < 0 {
			pan = fmt.Sprintf("L%d", -vc.Pan)
		}
		where := "centred"
		if vc.Dir > 0 {
			where = fmt.Sprintf("%s %.0f m", dirNames[vc.Dir], vc.Dist)
		}
		want := fmt.Sprintf("%s%d dB · %s · %s", vc.Wave, vc.DB, pan, where)
		found := false
		for _, e := range r.Voices {
			found = found || strings.HasPrefix(e, want)
		}
		if !found {
			t.Errorf("no voice entry reads %q; the entries: %q", want, r.Voices)
		}
	}
}
