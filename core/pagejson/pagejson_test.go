package pagejson

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
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

// same fails unless the hand-written JSON is encoding/json's, byte for byte.
func same(t *testing.T, what string, got []byte, err error, v any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: encoding/json: %v", what, err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s differs from encoding/json's at byte %d:\n got …%s\nwant …%s", what, i, clip(got, i), clip(want, i))
	}
}

func clip(b []byte, i int) []byte { return b[max(0, i-40):min(len(b), i+60)] }

// The page's host over the demo world, at every landmark with its voices
// sounding: state() and the poll are what encoding/json wrote for them.
func TestSnapshotsAndDrainsAreEncodingJSONs(t *testing.T) {
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
	same(t, "the snapshot before any move", must(Snapshot(nil, h.Snapshot())), nil, h.Snapshot())
	now, captions := 0.0, 0
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
		got, err := Snapshot(nil, s)
		same(t, "state() at the "+lm.Name, got, err, s)
		d := h.Drain()
		got, err = Drained(nil, d)
		same(t, "the poll at the "+lm.Name, got, err, d)
		captions += len(d.Captions)
	}
	if captions == 0 {
		t.Fatal("no caption at any landmark: the test covers less than it says")
	}
	// A poll with problems of every shape, messages that need escaping.
	d := session.Drained{Events: []ambient.Event{}, Errors: []session.Problem{
		session.Classify(errors.New(`a "quoted" <b>&</b> line` + "\n\ttab \x01\u2028\u2029 \xff end")),
		{Code: session.CodeNotFound, Message: "soundtable 0x20000101: not found", ID: 0x20000101},
		{Code: session.CodeMissingLandblock, Message: "é", Landblock: 0xA9B5FFFF},
		{Code: session.CodeNetwork, Message: "503", Reason: "status", Status: 503},
		{Code: session.CodeNetwork, Message: "offline", Reason: "no-answer"},
	}, Captions: []caption.Caption{
		{T: 1.5, Kind: caption.KindBed, Text: "running water, all around", Direction: "all around", Near: true, Table: 0x20000103, DB: -12},
		{T: 2.25, Kind: caption.KindCall, Text: "a call from the forest, north-east", Direction: "north-east", STBIndex: 2, Table: 0x20000105, Wave: 0x0A000101, DB: -31},
	}, Dropped: 3}
	got, err := Drained(nil, d)
	same(t, "a poll with problems", got, err, d)
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// info().
func TestInfoIsEncodingJSON(t *testing.T) {
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
	got, err := Info(nil, in)
	same(t, "info()", got, err, in)
	got, err = Info(nil, mapview.InfoOf(nil))
	same(t, "info() of no region", got, err, mapview.InfoOf(nil))
}

// The float rule at its edges: exponent form below 1e-6 and from 1e21,
// at both sizes, with the exponent's zero dropped.
func TestFloatsAreEncodingJSONs(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1.5, 1e-6, 9.99e-7, 1e-7, 1e21, 9.9e20, 1.23e-30, 123456789.125, 1.0 / 3} {
		want, _ := json.Marshal(v)
		if got := float(nil, v, 64); !bytes.Equal(got, want) {
			t.Errorf("float64 %v: %s, encoding/json %s", v, got, want)
		}
		f := float32(v)
		want, _ = json.Marshal(f)
		if got := float(nil, float64(f), 32); !bytes.Equal(got, want) {
			t.Errorf("float32 %v: %s, encoding/json %s", f, got, want)
		}
	}
}

// stats(): every figure distinct, so that a key swapped or dropped shows;
// loading with and without trouble, each of trouble's optional keys.
func TestPageStatsAreEncodingJSONs(t *testing.T) {
	p := Page{
		Go:      GoMemory{Live: 1, Objects: 2, Free: 3, Released: 4, Goal: 5, Stacks: 6, Total: 7, Allocated: 8, GCs: 9, Goroutines: 10},
		Loading: session.Stats{Records: 11, Bytes: 12, Failed: 13, Pending: 14, HeldBytes: 15, LoadingSkips: 16},
		Held:    session.HeldStats{Blocks: 17, Cells: 18, Tables: 19, Waves: 20, WaveBytes: 21, Kept: 22, KeptBytes: 23},
		Portal:  datfetch.HTTPStats{InFlight: 24, InFlightPeak: 25, InFlightMax: 26, Cached: 27, CachedRecords: 28, Requests: 29, Received: 30},
		Cell:    datfetch.HTTPStats{InFlight: 31, InFlightPeak: 32, InFlightMax: 33, Cached: 34, CachedRecords: 35, Requests: 36, Received: 37},
		Mixer:   Mixer{Cached: 38, Clips: 39},
		Samples: Samples{Total: 40, Free: 41},
	}
	got, err := PageStats(nil, p)
	same(t, "stats() without trouble", got, err, p)
	for _, tr := range []session.Trouble{
		{Reason: "status", Status: 503, RetryAfter: 2.5, RetryIn: 1.25, For: 7, Message: `the server answered "503" <busy>`},
		{Reason: "slow", Rate: 1234.5, RetryIn: 0, For: 5.000001, Message: "slow"},
		{Reason: "no-answer", RetryIn: 1e-7, For: 0, Message: ""},
	} {
		p.Loading.Trouble = &tr
		got, err := PageStats(nil, p)
		same(t, "stats() with trouble "+tr.Reason, got, err, p)
	}
}
