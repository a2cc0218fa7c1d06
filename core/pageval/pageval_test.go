package pageval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	"acambient/core/ambient"
	"acambient/core/caption"
	"acambient/core/demo"
	"acambient/core/demo/spots"
	"acambient/core/mapview"
	"acambient/core/session"
	"acambient/core/world"
	"acambient/datfetch"
	"acambient/datfetch/source"
)

// same fails unless the boundary value v, as vert hands it to JavaScript,
// is what JSON.parse made of encoding/json's output of the core's value
// (the JSON the page parsed before: the contract's keys and value forms).
func same(t *testing.T, what string, v any, core any) {
	t.Helper()
	b, err := json.Marshal(core)
	if err != nil {
		t.Fatalf("%s: encoding/json: %v", what, err)
	}
	var want any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if got := asJS(reflect.ValueOf(v)); !reflect.DeepEqual(got, want) {
		gb, _ := json.Marshal(got)
		t.Fatalf("%s differs from the JSON's:\n got %s\nwant %s", what, clip(gb), clip(b))
	}
}

func clip(b []byte) []byte { return b[:min(len(b), 1500)] }

// asJS is what vert's ValueOf makes of v (github.com/norunners/vert
// value.go), in JSON.parse's terms: a struct an object keyed by its js
// tags, a string-keyed map an object, a nil slice, map, pointer or
// interface null, every number a float64. A named scalar type, which vert
// refuses, fails the test.
func asJS(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return asJS(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		a := make([]any, v.Len())
		for i := range a {
			a[i] = asJS(v.Index(i))
		}
		return a
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		m := map[string]any{}
		for it := v.MapRange(); it.Next(); {
			m[it.Key().String()] = asJS(it.Value())
		}
		return m
	case reflect.Struct:
		m := map[string]any{}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Anonymous {
				panic(fmt.Sprintf("%s embeds %s: vert nests it", v.Type(), f.Name))
			}
			k := f.Tag.Get("js")
			if k == "" {
				panic(fmt.Sprintf("%s.%s has no js tag", v.Type(), f.Name))
			}
			m[k] = asJS(v.Field(i))
		}
		return m
	}
	if v.Type().PkgPath() != "" {
		panic(fmt.Sprintf("named scalar type %s: vert refuses it", v.Type()))
	}
	switch v.Kind() {
	case reflect.Bool:
		return v.Bool()
	case reflect.String:
		return v.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return v.Float()
	}
	panic(fmt.Sprintf("%s: no JavaScript value", v.Type()))
}

// The page's host over the demo world, at every landmark with its voices
// sounding: state() and the poll are what the JSON was.
func TestStatesAndPollsAreTheJSONs(t *testing.T) {
	w, err := demo.Build()
	if err != nil {
		t.Fatal(err)
	}
	cfg := ambient.DefaultConfig()
	cfg.Seed = 7
	h, err := session.New(context.Background(), source.NewMemory(w.Portal), source.NewMemory(w.Cell),
		session.Options{Config: cfg, Sync: true, EventLog: 4096, Captions: true})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "the state before any move", StateOf(h.Snapshot()), h.Snapshot())
	now, captions, kinds := 0.0, 0, map[string]bool{}
	for _, lm := range spots.Landmarks {
		h.Move(world.Position{ObjCellID: lm.ObjCellID, X: lm.X, Y: lm.Y, Z: lm.Z})
		for range 30 * 20 {
			h.Tick(now)
			now += 1.0 / 30
		}
		s := h.Snapshot()
		if len(s.Voices) == 0 && lm.Name == "river" {
			t.Fatal("no voice at the river: the test covers less than it says")
		}
		same(t, "state() at the "+lm.Name, StateOf(s), s)
		d := h.Drain()
		v, err := DrainedOf(d)
		if err != nil {
			t.Fatal(err)
		}
		same(t, "the poll at the "+lm.Name, v, d)
		captions += len(d.Captions)
		for _, ev := range d.Events {
			kinds[string(ev.Kind)] = true
		}
	}
	if captions == 0 || !kinds["play"] || !kinds["rebuild"] || !kinds["skip"] {
		t.Fatalf("captions %d, event kinds %v: the test covers less than it says", captions, kinds)
	}
	// Every kind of event, and problems of every shape.
	d := session.Drained{Events: []ambient.Event{
		{T: 0.1, Kind: ambient.KindPlay, STBIndex: 1, SoundIndex: 2, SType: 3, Continuous: true, Wave: 0x0A000101,
			Variant: 1, Gain: 0.55, DB: -5, Pan: 3, Dir: 2, Dist: 22.85, Slot: 4},
		{T: 0.2, Kind: ambient.KindSkip, STBIndex: 1, SoundIndex: 2, Reason: ambient.ReasonChance},
		{T: 0.3, Kind: ambient.KindDequeue, STBIndex: 1, SoundIndex: 2},
		{T: 0.4, Kind: ambient.KindSteal, Wave: 0x0A000102},
		{T: math.Copysign(0, -1), Kind: ambient.KindRebuild, ObjCellID: 0xA9B4001C, Outdoorish: true, Total: 0.3, Instances: 5},
	}, Errors: []session.Problem{
		session.Classify(errors.New(`a "quoted" <b>&</b> line` + "\n\ttab \x01\u2028\u2029 end")),
		{Code: session.CodeNotFound, Message: "soundtable 0x20000101: not found", ID: 0x20000101},
		{Code: session.CodeMissingLandblock, Message: "é", Landblock: 0xA9B5FFFF},
		{Code: session.CodeNetwork, Message: "503", Reason: "status", Status: 503},
		{Code: session.CodeNetwork, Message: "offline", Reason: "no-answer"},
	}, Captions: []caption.Caption{
		{T: 1.5, Kind: caption.KindBed, Text: "running water, all around", Direction: "all around", Near: true, Table: 0x20000103, DB: -12},
		{T: 2.25, Kind: caption.KindCall, Text: "a call from the forest, north-east", Direction: "north-east", STBIndex: 2, Table: 0x20000105, Wave: 0x0A000101, DB: -31},
	}, Dropped: 3}
	v, err := DrainedOf(d)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "a poll of every shape", v, d)
	if _, err := DrainedOf(session.Drained{Events: []ambient.Event{{Kind: "nope"}}}); err == nil {
		t.Error("an event of an unknown kind passed")
	}
}

// info().
func TestInfoIsTheJSON(t *testing.T) {
	w, err := demo.Build()
	if err != nil {
		t.Fatal(err)
	}
	h, err := session.New(context.Background(), source.NewMemory(w.Portal), source.NewMemory(w.Cell), session.Options{Sync: true})
	if err != nil {
		t.Fatal(err)
	}
	in := mapview.InfoOf(h.Region())
	if len(in.Landmarks) == 0 || len(in.Terrains) == 0 {
		t.Fatal("the demo's info lists no landmark or terrain")
	}
	same(t, "info()", InfoOf(in), in)
	same(t, "info() of no region", InfoOf(mapview.InfoOf(nil)), mapview.InfoOf(nil))
}

// jsonStats is stats()'s shape as the JSON wrote it.
type jsonStats struct {
	Go      GoMemory           `json:"go"`
	Loading session.Stats      `json:"loading"`
	Held    session.HeldStats  `json:"held"`
	Portal  datfetch.HTTPStats `json:"portal"`
	Cell    datfetch.HTTPStats `json:"cell"`
	Mixer   Mixer              `json:"mixer"`
	Samples Samples            `json:"samples"`
}

// stats(): every figure distinct, so that a key swapped or dropped shows;
// loading with and without trouble, each of trouble's optional keys.
func TestStatsAreTheJSONs(t *testing.T) {
	p := jsonStats{
		Go:      GoMemory{Live: 1, Objects: 2, Free: 3, Released: 4, Goal: 5, Stacks: 6, Total: 7, Allocated: 8, GCs: 9, Goroutines: 10},
		Loading: session.Stats{Records: 11, Bytes: 12, Failed: 13, Pending: 14, HeldBytes: 15, LoadingSkips: 16},
		Held:    session.HeldStats{Blocks: 17, Cells: 18, Tables: 19, Waves: 20, WaveBytes: 21, Kept: 22, KeptBytes: 23},
		Portal:  datfetch.HTTPStats{InFlight: 24, InFlightPeak: 25, InFlightMax: 26, Cached: 27, CachedRecords: 28, Requests: 29, Received: 30},
		Cell:    datfetch.HTTPStats{InFlight: 31, InFlightPeak: 32, InFlightMax: 33, Cached: 34, CachedRecords: 35, Requests: 36, Received: 37},
		Mixer:   Mixer{Cached: 38, Clips: 39},
		Samples: Samples{Total: 40, Free: 41},
	}
	of := func(p jsonStats) Stats {
		return Stats{Go: p.Go, Loading: LoadingOf(p.Loading), Held: HeldOf(p.Held), Portal: HTTPOf(p.Portal),
			Cell: HTTPOf(p.Cell), Mixer: p.Mixer, Samples: p.Samples}
	}
	same(t, "stats() without trouble", of(p), p)
	for _, tr := range []session.Trouble{
		{Reason: "status", Status: 503, RetryAfter: 2.5, RetryIn: 1.25, For: 7, Message: `the server answered "503" <busy>`},
		{Reason: "slow", Rate: 1234.5, RetryIn: 0, For: 5.000001, Message: "slow"},
		{Reason: "no-answer", RetryIn: 1e-7, For: 0, Message: ""},
	} {
		p.Loading.Trouble = &tr
		same(t, "stats() with trouble "+tr.Reason, of(p), p)
	}
}

// A float32 is the decimal the JSON wrote for it, not its binary tail.
func TestF32(t *testing.T) {
	for _, c := range []struct {
		in   float32
		want float64
	}{{22.85, 22.85}, {0.55, 0.55}, {float32(math.Copysign(0, -1)), 0}, {1e-7, 1e-7}, {float32(math.NaN()), 0}, {-3, -3}} {
		if got := F32(c.in); got != c.want || math.Signbit(got) != math.Signbit(c.want) {
			t.Errorf("F32(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
