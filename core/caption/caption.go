// Package caption puts what the ambient engine plays into words, for a
// person who cannot hear it (docs/interfaces.md §3.3, "caption"): one
// caption when a rebuild changes the continuous sounds around the listener
// ("running water, all around"), one for an audible one-shot ("a call from
// the forest, ahead-right, near"), at most one a second.
//
// Everything is read off what the engine decided, so the words agree with
// what is heard: a one-shot's direction is the band the engine placed it in
// (IntermitSound::GetSoundPos picks a band, then jitters it by ±11.25°),
// taken relative to the camera's heading as the pan is; its near or far is
// the whole dB the voice was sent; a bed is a ConstantSound whose next
// centred fire is audible (ambient.Engine.Beds), and its direction the
// weighted bands of the cells that weighed it. Names are soundname's, as the
// zone legend says them.
//
// The rules (docs/interfaces.md §3.3):
//
//   - Direction. Without a camera, eight compass words; with one, eight
//     words relative to its heading ("ahead", "ahead-right", "right", …,
//     "ahead-left"), each a 45° sector centred on its word. A one-shot's
//     bearing is its band's nominal heading. A bed's is the resultant of
//     its cells' weights, each along its cell's band (CalcDir, the bands a
//     one-shot is placed in); cells in the listener's block (band 0) pull
//     no way. When the resultant is under half the summed weight
//     (AllAround) the set surrounds the listener: "all around". A listener
//     at the straight edge of a set (its cells fill a half-disc) gets a
//     resultant of 2/π ≈ 0.64 of the weight, a direction; one inside it
//     gets nearly 0.
//   - Near or far. A sound sent at −20 dB (NearDB) or louder is near. By
//     GetAttenuation's inverse square, 25·V/r² = 10^(−20/20) puts it at
//     r = 15.8·√V metres at slider 1: 14.1 m for a typical one-shot volume
//     of 0.8, the 14.14 m within which CalcDir gives no direction at all.
//     A bed says "far" when it is below that, and nothing when near.
//   - The rate limit. Captions are offered to a window that opens with the
//     first offer after the last caption and closes one second later
//     (Window): at the first tick past that, the window's caption goes out,
//     so two captions are at least a second apart. A bed wins its window
//     (the latest bed of the window, if it still differs from the one last
//     said): it is said only when the continuous sounds change, and one
//     lost would leave the old words standing as long as the listener
//     stays. Otherwise the loudest one-shot wins, by the whole dB it was
//     sent at, the earlier one on a tie; the others of the window are not
//     said.
//   - Nothing is said of what is not heard: no rebuild in a cell that sees
//     no outside gives a bed, ambient sound disabled or the slider at 0
//     gives none (Beds), and a culled one-shot is no play.
//
// The captioner runs in the host's tick, on the audio clock: per tick it
// compares the tick's plays against the window's best, without allocating;
// words are built only when a caption goes out, at most once a second.
package caption

import (
	"math"
	"strconv"

	"acambient/core/ambient"
	"acambient/core/dat"
	"acambient/core/soundname"
)

// Kind is what a caption tells of.
type Kind string

const (
	// KindBed: the continuous sounds around the listener changed.
	KindBed Kind = "bed"
	// KindCall: an audible one-shot.
	KindCall Kind = "call"
)

// The rules' numbers (package doc).
const (
	// Window is the rate limit: at most one caption in this many seconds.
	Window = 1.0
	// NearDB is the least whole dB of a near sound.
	NearDB = -20
	// AllAround is the least ratio of a bed's resultant to its summed
	// weight that gives it a direction.
	AllAround = 0.5
)

// AllAroundWord is a bed's direction when it surrounds the listener.
const AllAroundWord = "all around"

// Compass words, by 45° sector clockwise from north.
var compass = [8]string{"north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"}

// Relative words, by 45° sector clockwise from the camera's facing.
var relative = [8]string{"ahead", "ahead-right", "right", "behind-right", "behind", "behind-left", "left", "ahead-left"}

// Caption is one caption (docs/interfaces.md §3.3).
type Caption struct {
	T         float64 // the rebuild (a bed) or the play (a call), audio-clock seconds
	Kind      Kind
	Text      string // for people: "running water, all around"
	Direction string // "all around", a compass word, or a word relative to the camera
	Near      bool
	STBIndex  int    // the set (a bed of several: the loudest)
	Table     uint32 // its SoundTable
	Wave      uint32 // the call's wave; 0 for a bed (its variant is drawn at each fire)
	DB        int    // the whole dB it plays at (a bed's next fire)
}

// Listener is the camera as the host holds it: whether one was set (the
// words are relative to its heading) and its compass heading in degrees.
type Listener struct {
	Camera  bool
	Heading float64
}

// Captioner turns one engine's decisions into captions. It is not safe for
// concurrent use: the host calls it under its lock.
type Captioner struct {
	names  []string // per STB: the plain name
	group  []int    // per STB: the first STB of its name (sets named alike are one bed)
	tables []uint32

	open bool    // a window is open
	end  float64 // when it closes

	call    offer // the loudest one-shot offered to the window
	hasCall bool

	bedDue bool    // a bed is offered to the window: cur, unsaid
	bedT   float64 // when cur was evaluated (the rebuild that changed it)
	cur    []part  // the beds as last evaluated, loudest first
	said   []part  // the beds the last bed caption said (none: say the next)

	// Buffers reused by each evaluation.
	beds  []ambient.Bed
	cells []ambient.CellWeight
	acc   []accum // per group
	next  []part
}

// offer is a one-shot a window holds.
type offer struct {
	t        float64
	stb, db  int
	dir      int
	wave     uint32
	listener Listener
}

// part is one bed: a group of sets named alike, its loudest set and level,
// and its direction: compass degrees, and their sector (0..7; −1 all
// around), which is what tells two beds apart.
type part struct {
	group, stb, db, sector int
	deg                    float64
}

// accum sums one group's cells.
type accum struct {
	weight, x, y float64
	db, stb      int
	in           bool
}

// New makes a captioner for region r's sound sets.
func New(r *dat.Region) *Captioner {
	sets := soundname.Sets(r)
	c := &Captioner{names: make([]string, len(sets)), group: make([]int, len(sets)), tables: make([]uint32, len(sets))}
	first := map[string]int{}
	for k, s := range sets {
		c.names[k] = s.Name
		if s.Name == "" {
			c.names[k] = "sound set " + strconv.Itoa(k) // no terrain names it: no gather reaches it
		}
		if g, ok := first[c.names[k]]; ok {
			c.group[k] = g
		} else {
			first[c.names[k]], c.group[k] = k, k
		}
		c.tables[k] = uint32(r.SoundInfo.STBDescs[k].STBID)
	}
	c.acc = make([]accum, len(sets))
	return c
}

// Tick is one host tick at now: it closes the window if it is due (and
// returns its caption), re-evaluates the beds when beds is set (after a
// rebuild, or a change of the slider or of ambient_sounds_enabled), and
// offers the tick's audible one-shots, evs being its events.
func (c *Captioner) Tick(now float64, evs []ambient.Event, beds bool, eng *ambient.Engine, l Listener) (Caption, bool) {
	var out Caption
	emitted := false
	if c.open && now >= c.end {
		out, emitted = c.close(l)
	}
	if beds {
		c.evaluate(now, eng)
	}
	for i := range evs {
		ev := &evs[i]
		if ev.Kind != ambient.KindPlay || ev.Continuous {
			continue
		}
		if !c.hasCall || ev.DB > c.call.db {
			c.call = offer{t: ev.T, stb: ev.STBIndex, db: ev.DB, dir: ev.Dir, wave: ev.Wave, listener: l}
			c.hasCall = true
		}
		c.offered(now)
	}
	return out, emitted
}

// Forget forgets which beds were last said, so that the next evaluation
// says them again: for a page whose audio has just begun to be heard, which
// dropped the captions of its silence.
func (c *Captioner) Forget() { c.said = c.said[:0] }

// offered opens a window at now unless one is open.
func (c *Captioner) offered(now float64) {
	if !c.open {
		c.open, c.end = true, now+Window
	}
}

// close ends the window: its bed if one is due, else its loudest call.
func (c *Captioner) close(l Listener) (Caption, bool) {
	c.open = false
	defer func() { c.hasCall = false }()
	if c.bedDue {
		c.bedDue = false
		c.said = append(c.said[:0], c.cur...)
		return c.bedCaption(l), true
	}
	if c.hasCall {
		return c.callCaption(), true
	}
	return Caption{}, false
}

// evaluate works out the beds and offers them when they differ from what
// was last said. No beds (the cellar, silence) say nothing, and forget what
// was said, so the next beds are said whatever they are.
func (c *Captioner) evaluate(now float64, eng *ambient.Engine) {
	c.beds = eng.Beds(c.beds[:0])
	c.next = c.next[:0]
	if len(c.beds) > 0 {
		c.cells = eng.AppendCells(c.cells[:0])
		c.next = c.parts(c.next)
	}
	c.cur = append(c.cur[:0], c.next...)
	switch {
	case len(c.cur) == 0:
		c.bedDue = false
		c.said = c.said[:0]
	case sameBeds(c.cur, c.said):
		c.bedDue = false // back to what was said: nothing to say
	default:
		c.bedDue, c.bedT = true, now
		c.offered(now)
	}
}

// parts groups c.beds by name, with each group's level (its loudest set)
// and direction from c.cells, loudest first (ties: lower set index).
func (c *Captioner) parts(dst []part) []part {
	for i := range c.acc {
		c.acc[i] = accum{}
	}
	for _, b := range c.beds {
		a := &c.acc[c.group[b.STBIndex]]
		if !a.in || b.DB > a.db || (b.DB == a.db && b.STBIndex < a.stb) {
			a.db, a.stb = b.DB, b.STBIndex
		}
		a.in = true
	}
	for _, cw := range c.cells {
		if cw.STBIndex < 0 || cw.STBIndex >= len(c.group) {
			continue
		}
		a := &c.acc[c.group[cw.STBIndex]]
		if !a.in {
			continue
		}
		w := float64(cw.Weight)
		a.weight += w
		if cw.Dir != 0 {
			h := float64(ambient.DirHeading(cw.Dir))
			a.x += w * math.Sin(h)
			a.y += w * math.Cos(h)
		}
	}
	for g := range c.acc {
		a := &c.acc[g]
		if !a.in {
			continue
		}
		p := part{group: g, stb: a.stb, db: a.db, sector: -1}
		if r := math.Hypot(a.x, a.y); a.weight > 0 && r >= AllAround*a.weight {
			p.deg = math.Atan2(a.x, a.y) * 180 / math.Pi
			p.sector = sectorOf(p.deg)
		}
		dst = append(dst, p)
	}
	// Loudest first, by insertion: a handful of beds (slices.SortFunc would
	// add a sort's code to the page's wasm for them).
	for i := 1; i < len(dst); i++ {
		for j := i; j > 0 && louder(dst[j], dst[j-1]); j-- {
			dst[j], dst[j-1] = dst[j-1], dst[j]
		}
	}
	return dst
}

// louder orders beds: the higher level, then the lower set index.
func louder(p, q part) bool { return p.db > q.db || (p.db == q.db && p.stb < q.stb) }

// sameBeds: the same sets from the same directions (levels aside: the
// slider moves them, and a bed does not change by getting quieter).
func sameBeds(a, b []part) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].group != b[i].group || a[i].sector != b[i].sector {
			return false
		}
	}
	return true
}

// bedCaption says c.cur: "running water, all around; grassland, to the
// west, far".
func (c *Captioner) bedCaption(l Listener) Caption {
	loud := c.cur[0]
	text := make([]byte, 0, 64)
	for i, p := range c.cur {
		if i > 0 {
			text = append(text, "; "...)
		}
		text = append(text, c.names[p.stb]...)
		text = append(text, ", "...)
		text = append(text, bedPhrase(p, l)...)
		if p.db < NearDB {
			text = append(text, ", far"...)
		}
	}
	return Caption{Kind: KindBed, Text: string(text), Direction: loud.word(l), Near: loud.db >= NearDB,
		STBIndex: loud.stb, Table: c.tables[loud.stb], DB: loud.db, T: c.bedT}
}

// word is the bed's direction as l hears it.
func (p part) word(l Listener) string {
	if p.sector < 0 {
		return AllAroundWord
	}
	return word(p.deg, l)
}

// callCaption says the window's call: "a call from the forest, north-east,
// near".
func (c *Captioner) callCaption() Caption {
	o := c.call
	dir := Direction(o.dir, o.listener)
	near := o.db >= NearDB
	how := "far"
	if near {
		how = "near"
	}
	return Caption{Kind: KindCall, Text: "a call from the " + c.names[o.stb] + ", " + dir + ", " + how, Direction: dir,
		Near: near, STBIndex: o.stb, Table: c.tables[o.stb], Wave: o.wave, DB: o.db, T: o.t}
}

// Direction is the word for a one-shot placed in band dir (1..8) heard by
// l: the band's nominal heading as a compass word, or relative to the
// camera's heading when one is set. A centred sound (band 0) is all around.
func Direction(dir int, l Listener) string {
	if dir == 0 {
		return AllAroundWord
	}
	return word(float64(ambient.DirHeading(dir))*180/math.Pi, l)
}

// word is compass degrees deg as l hears them: the compass word of its
// sector, or with a camera the word of its sector relative to the heading.
func word(deg float64, l Listener) string {
	if !l.Camera {
		return compass[sectorOf(deg)]
	}
	return relative[sectorOf(deg-l.Heading)]
}

// bedPhrase is a bed's direction in its sentence: "all around", "to the
// west", "to the right", "ahead", "behind-left".
func bedPhrase(p part, l Listener) string {
	w := p.word(l)
	switch {
	case p.sector < 0:
		return w
	case !l.Camera, w == "left", w == "right":
		return "to the " + w
	}
	return w
}

// sectorOf is the 45° sector (0..7) of compass degrees, each centred on its
// word: [−22.5°, 22.5°) is 0 (north, or ahead).
func sectorOf(deg float64) int {
	d := math.Mod(deg+22.5, 360)
	if d < 0 {
		d += 360
	}
	return int(d/45) % 8
}
