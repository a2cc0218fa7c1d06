// Package pageval makes the values the page's API hands JavaScript
// (docs/interfaces.md §3: state(), the polled events, captions and errors,
// info(), stats(), a position in every form) as plain boundary types: flat
// structs of plain field types with js tags, which wasm/ hands to vert's
// ValueOf (docs/architecture.md §4.6). vert takes a js tag as the key,
// makes a nil slice or pointer null, a nested struct an object, an
// embedded one a nested object (so none is embedded here) and refuses
// named scalar types (so ids are strings and kinds plain strings here).
// The keys and value forms are the contract's, those the hand-written JSON
// had: ids "0x%08X", float32 figures as the shortest decimal that reads
// back as the float32, keys a JSON encoder left off when empty left off
// (a map where a key may be missing). Native, so its test checks each
// value against encoding/json's output of the core's types.
package pageval

import (
	"fmt"
	"math"
	"strconv"

	"acambient/core/ambient"
	"acambient/core/caption"
	"acambient/core/mapview"
	"acambient/core/session"
	"acambient/core/world"
)

// Position is a position (docs/interfaces.md §1.2).
type Position struct {
	ObjcellID string  `js:"objcellId"`
	X         float64 `js:"x"`
	Y         float64 `js:"y"`
	Z         float64 `js:"z"`
}

// Where is a position in every form (docs/interfaces.md §1.2).
type Where struct {
	ObjcellID string  `js:"objcellId"`
	X         float64 `js:"x"`
	Y         float64 `js:"y"`
	Z         float64 `js:"z"`
	Outdoor   bool    `js:"outdoor"`
	GX        float64 `js:"X"`
	GY        float64 `js:"Y"`
	NS        float64 `js:"ns"`
	EW        float64 `js:"ew"`
}

// State is state() (session.Snapshot: ambient.State's keys, then the host's).
type State struct {
	Player            Position  `js:"player"`
	Outdoorish        bool      `js:"outdoorish"`
	TotalSoundCount   float64   `js:"totalSoundCount"`
	ContributingCells int       `js:"contributingCells"`
	Sounds            []Sound   `js:"sounds"`
	HeldInstances     int       `js:"heldInstances"`
	Voices            []Voice   `js:"voices"`
	Loading           Object    `js:"loading"`
	Where             Where     `js:"where"`
	Cells             []Cell    `js:"cells"`
	Next              []float64 `js:"next"`
	Time              float64   `js:"time"`
}

// Sound is one instance of the state (ambient.SoundState).
type Sound struct {
	STBIndex      int      `js:"stbIndex"`
	STBID         string   `js:"stbId"`
	SoundIndex    int      `js:"soundIndex"`
	SType         uint32   `js:"sType"`
	Continuous    bool     `js:"continuous"`
	SoundCount    float64  `js:"soundCount"`
	Share         float64  `js:"share"`
	CurrentVolume float64  `js:"currentVolume"`
	PlayChance    float64  `js:"playChance"`
	Authored      Authored `js:"authored"`
	Dirs          []Dir    `js:"dirs"`
}

// Authored is the region's AmbientSoundDesc.
type Authored struct {
	Volume     float64 `js:"volume"`
	BaseChance float64 `js:"baseChance"`
	MinRate    float64 `js:"minRate"`
	MaxRate    float64 `js:"maxRate"`
}

// Dir is an IntermitSound direction band.
type Dir struct {
	Dir int     `js:"dir"`
	Min float64 `js:"min"`
	Max float64 `js:"max"`
}

// Cell is a land cell that weighted the last rebuild; its id is a number
// here, as the JSON had it.
type Cell struct {
	ObjcellID uint32  `js:"objcellId"`
	STBIndex  int     `js:"stbIndex"`
	Weight    float64 `js:"weight"`
	Dir       int     `js:"dir"`
	Dist      float64 `js:"dist"`
}

// Play is a "play" event (docs/interfaces.md §1.3).
type Play struct {
	T          float64 `js:"t"`
	Event      string  `js:"event"`
	STBIndex   int     `js:"stbIndex"`
	SoundIndex int     `js:"soundIndex"`
	SType      uint32  `js:"sType"`
	Continuous bool    `js:"continuous"`
	Wave       string  `js:"wave"`
	Variant    int     `js:"variant"`
	Gain       float64 `js:"gain"`
	DB         int     `js:"db"`
	Pan        int     `js:"pan"`
	Dir        int     `js:"dir"`
	Dist       float64 `js:"dist"`
}

// Voice is a sounding voice: its play's keys, then its end and slot. Play's
// fields are written out, not embedded: vert nests an embedded struct as an
// object of its own, and the page reads one flat object.
type Voice struct {
	T          float64 `js:"t"`
	Event      string  `js:"event"`
	STBIndex   int     `js:"stbIndex"`
	SoundIndex int     `js:"soundIndex"`
	SType      uint32  `js:"sType"`
	Continuous bool    `js:"continuous"`
	Wave       string  `js:"wave"`
	Variant    int     `js:"variant"`
	Gain       float64 `js:"gain"`
	DB         int     `js:"db"`
	Pan        int     `js:"pan"`
	Dir        int     `js:"dir"`
	Dist       float64 `js:"dist"`
	End        float64 `js:"end"`
	Slot       int     `js:"slot"`
}

// Skip is a "skip" event.
type Skip struct {
	T          float64 `js:"t"`
	Event      string  `js:"event"`
	STBIndex   int     `js:"stbIndex"`
	SoundIndex int     `js:"soundIndex"`
	Reason     string  `js:"reason"`
}

// Dequeue is a "dequeue" event.
type Dequeue struct {
	T          float64 `js:"t"`
	Event      string  `js:"event"`
	STBIndex   int     `js:"stbIndex"`
	SoundIndex int     `js:"soundIndex"`
}

// Steal is a "steal" event.
type Steal struct {
	T     float64 `js:"t"`
	Event string  `js:"event"`
	Wave  string  `js:"wave"`
}

// Rebuild is a "rebuild" event.
type Rebuild struct {
	T               float64 `js:"t"`
	Event           string  `js:"event"`
	ObjcellID       string  `js:"objcellId"`
	Outdoorish      bool    `js:"outdoorish"`
	TotalSoundCount float64 `js:"totalSoundCount"`
	Instances       int     `js:"instances"`
}

// Caption is a caption event (docs/interfaces.md §3.3); Wave is nil (null)
// for a bed, else its id.
type Caption struct {
	Text      string  `js:"text"`
	Kind      string  `js:"kind"`
	Direction string  `js:"direction"`
	Near      bool    `js:"near"`
	STBIndex  int     `js:"stbIndex"`
	Table     string  `js:"table"`
	Wave      any     `js:"wave"`
	T         float64 `js:"t"`
	DB        int     `js:"db"`
}

// Drained is a poll: the events (each a Play, Skip, Dequeue, Steal or
// Rebuild), the problems (an Object: their empty keys are left off),
// the captions and the count of events lost.
type Drained struct {
	Events   []any     `js:"events"`
	Errors   []Object  `js:"errors"`
	Captions []Caption `js:"captions"`
	Dropped  int       `js:"dropped"`
}

// Object is a JavaScript object whose keys vary (some are left off when
// empty): vert makes a map with string keys an object.
type Object = map[string]any

// Info is info(): the terrain legend, the demo's landmarks, the land's bounds.
type Info struct {
	Terrains  []mapview.Terrain `js:"terrains"` // plain fields with js tags already
	Landmarks []Landmark        `js:"landmarks"`
	Bounds    Bounds            `js:"bounds"`
	Demo      bool              `js:"demo"`
	Region    string            `js:"region"`
}

// Landmark is a named demo spot.
type Landmark struct {
	Name        string `js:"name"`
	Description string `js:"description"`
	Where       Where  `js:"where"`
}

// Bounds is the range of landblocks that can hold land, inclusive.
type Bounds struct {
	BX0 int `js:"bx0"`
	BY0 int `js:"by0"`
	BX1 int `js:"bx1"`
	BY1 int `js:"by1"`
}

// PositionOf is p's value.
func PositionOf(p world.Position) Position {
	return Position{ObjcellID: HexID(p.ObjCellID), X: F32(p.X), Y: F32(p.Y), Z: F32(p.Z)}
}

// WhereOf is w's value.
func WhereOf(w world.Where) Where {
	return Where{ObjcellID: HexID(w.ObjCellID), X: F32(w.Position.X), Y: F32(w.Position.Y),
		Z: F32(w.Position.Z), Outdoor: w.Outdoor, GX: num(w.X), GY: num(w.Y), NS: num(w.NS), EW: num(w.EW)}
}

// StateOf is state()'s value for the host's snapshot s.
func StateOf(s session.Snapshot) State {
	v := State{Player: PositionOf(s.Player), Outdoorish: s.Outdoorish, TotalSoundCount: F32(s.TotalSoundCount),
		ContributingCells: s.ContributingCells, HeldInstances: s.HeldInstances, Loading: LoadingOf(s.Loading),
		Where: WhereOf(s.Where), Next: s.Next, Time: num(s.Time)}
	if s.Sounds != nil {
		v.Sounds = make([]Sound, len(s.Sounds))
		for i, x := range s.Sounds {
			a := x.Authored
			v.Sounds[i] = Sound{STBIndex: x.STBIndex, STBID: HexID(uint32(x.STBID)), SoundIndex: x.SoundIndex,
				SType: x.SType, Continuous: x.Continuous, SoundCount: F32(x.SoundCount), Share: num(x.Share),
				CurrentVolume: F32(x.CurrentVolume), PlayChance: F32(x.PlayChance),
				Authored: Authored{Volume: F32(a.Volume), BaseChance: F32(a.BaseChance), MinRate: F32(a.MinRate), MaxRate: F32(a.MaxRate)}}
			if x.Dirs != nil {
				v.Sounds[i].Dirs = make([]Dir, len(x.Dirs))
				for j, d := range x.Dirs {
					v.Sounds[i].Dirs[j] = Dir{Dir: d.Dir, Min: F32(d.Min), Max: F32(d.Max)}
				}
			}
		}
	}
	if s.Voices != nil {
		v.Voices = make([]Voice, len(s.Voices))
		for i, x := range s.Voices {
			p := playOf(x.Play)
			v.Voices[i] = Voice{T: p.T, Event: p.Event, STBIndex: p.STBIndex, SoundIndex: p.SoundIndex, SType: p.SType,
				Continuous: p.Continuous, Wave: p.Wave, Variant: p.Variant, Gain: p.Gain, DB: p.DB, Pan: p.Pan,
				Dir: p.Dir, Dist: p.Dist, End: num(x.End), Slot: x.Play.Slot}
		}
	}
	if s.Cells != nil {
		v.Cells = make([]Cell, len(s.Cells))
		for i, c := range s.Cells {
			v.Cells[i] = Cell{ObjcellID: c.ObjCellID, STBIndex: c.STBIndex, Weight: F32(c.Weight), Dir: c.Dir, Dist: F32(c.Dist)}
		}
	}
	return v
}

// LoadingOf is what the host fetched and holds; "trouble" only while
// there is trouble, and its status, rate and retryAfter only when set.
func LoadingOf(s session.Stats) Object {
	o := Object{"records": s.Records, "bytes": s.Bytes, "failed": s.Failed, "pending": s.Pending,
		"heldBytes": s.HeldBytes, "loadingSkips": s.LoadingSkips}
	if t := s.Trouble; t != nil {
		tr := Object{"reason": t.Reason, "retryIn": num(t.RetryIn), "for": num(t.For), "message": t.Message}
		if t.Status != 0 {
			tr["status"] = t.Status
		}
		if t.Rate != 0 {
			tr["rate"] = num(t.Rate)
		}
		if t.RetryAfter != 0 {
			tr["retryAfter"] = num(t.RetryAfter)
		}
		o["trouble"] = tr
	}
	return o
}

// DrainedOf is a poll's value. An event of a kind docs/interfaces.md §1.3
// does not list is an error, as it was to the JSON.
func DrainedOf(d session.Drained) (Drained, error) {
	v := Drained{Dropped: d.Dropped}
	if d.Events != nil {
		v.Events = make([]any, len(d.Events))
		for i, ev := range d.Events {
			e, err := EventOf(ev)
			if err != nil {
				return Drained{}, err
			}
			v.Events[i] = e
		}
	}
	if d.Errors != nil {
		v.Errors = make([]Object, len(d.Errors))
		for i, p := range d.Errors {
			v.Errors[i] = ProblemOf(p)
		}
	}
	if d.Captions != nil {
		v.Captions = make([]Caption, len(d.Captions))
		for i, c := range d.Captions {
			v.Captions[i] = CaptionOf(c)
		}
	}
	return v, nil
}

// EventOf is ev with the keys docs/interfaces.md §1.3 lists for its kind.
func EventOf(ev ambient.Event) (any, error) {
	t, kind := num(ev.T), string(ev.Kind)
	switch ev.Kind {
	case ambient.KindPlay:
		return playOf(ev), nil
	case ambient.KindSkip:
		return Skip{T: t, Event: kind, STBIndex: ev.STBIndex, SoundIndex: ev.SoundIndex, Reason: string(ev.Reason)}, nil
	case ambient.KindDequeue:
		return Dequeue{T: t, Event: kind, STBIndex: ev.STBIndex, SoundIndex: ev.SoundIndex}, nil
	case ambient.KindSteal:
		return Steal{T: t, Event: kind, Wave: HexID(ev.Wave)}, nil
	case ambient.KindRebuild:
		return Rebuild{T: t, Event: kind, ObjcellID: HexID(ev.ObjCellID), Outdoorish: ev.Outdoorish,
			TotalSoundCount: F32(ev.Total), Instances: ev.Instances}, nil
	}
	return nil, fmt.Errorf("pageval: event at t=%v: unknown kind %q", ev.T, ev.Kind)
}

// playOf is a play's keys; gain and distance at the float32 precision
// retail keeps them (ambient.Event's JSON).
func playOf(ev ambient.Event) Play {
	return Play{T: num(ev.T), Event: string(ev.Kind), STBIndex: ev.STBIndex, SoundIndex: ev.SoundIndex, SType: ev.SType,
		Continuous: ev.Continuous, Wave: HexID(ev.Wave), Variant: ev.Variant, Gain: F32(float32(ev.Gain)), DB: ev.DB,
		Pan: ev.Pan, Dir: ev.Dir, Dist: F32(float32(ev.Dist))}
}

// ProblemOf is what an error says (docs/interfaces.md §3.4), its empty
// keys left off.
func ProblemOf(p session.Problem) Object {
	o := Object{"code": string(p.Code), "message": p.Message}
	if p.ID != 0 {
		o["id"] = HexID(uint32(p.ID))
	}
	if p.Landblock != 0 {
		o["landblock"] = HexID(uint32(p.Landblock))
	}
	if p.Reason != "" {
		o["reason"] = p.Reason
	}
	if p.Status != 0 {
		o["status"] = p.Status
	}
	return o
}

// CaptionOf is c's caption event.
func CaptionOf(c caption.Caption) Caption {
	v := Caption{Text: c.Text, Kind: string(c.Kind), Direction: c.Direction, Near: c.Near, STBIndex: c.STBIndex,
		Table: HexID(c.Table), T: num(c.T), DB: c.DB}
	if c.Kind != caption.KindBed {
		v.Wave = HexID(c.Wave)
	}
	return v
}

// InfoOf is info()'s value.
func InfoOf(in mapview.Info) Info {
	v := Info{Terrains: in.Terrains, Bounds: Bounds{in.Bounds.BX0, in.Bounds.BY0, in.Bounds.BX1, in.Bounds.BY1},
		Demo: in.Demo, Region: in.Region}
	if in.Landmarks != nil {
		v.Landmarks = make([]Landmark, len(in.Landmarks))
		for i, l := range in.Landmarks {
			v.Landmarks[i] = Landmark{Name: l.Name, Description: l.Description, Where: WhereOf(l.Where)}
		}
	}
	return v
}

// HexID is an id as docs/interfaces.md §0 prints it.
func HexID(id uint32) string {
	const digits = "0123456789ABCDEF"
	b := []byte("0x00000000")
	for i := range 8 {
		b[2+i] = digits[id>>(28-4*i)&0xF]
	}
	return string(b)
}

// F32 is a float32 as the shortest decimal that reads back as it, the
// number the JSON had for it, not float64(v)'s binary tail (22.85, not
// 22.850000381); −0 as 0. NaN and ±Inf, which the JSON could not hold, as 0.
func F32(v float32) float64 {
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) || v == 0 {
		return 0
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(v), 'g', -1, 32), 64)
	return f
}

// num is a float64 as the JSON had it: −0 as 0, NaN and ±Inf as 0.
func num(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
		return 0
	}
	return v
}
