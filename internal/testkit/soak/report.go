package soak

import (
	"encoding/json"
	"fmt"
	"math"
)

// Sample is soak.mjs's sample line: what the page holds at one moment.
type Sample struct {
	T      float64 `json:"t"`
	Phase  string  `json:"phase"`
	Source string  `json:"source"`
	Stats  struct {
		Go struct {
			Live, Objects, Goal, Total, Stacks, Allocated, GCs, Goroutines float64
			Free, Released                                                 float64 // the page heap's idle pages
		} `json:"go"`
		WasmMemory float64 `json:"wasmMemory"`
		Loading    struct {
			Records, Failed, Pending int
			Bytes, HeldBytes         float64
		} `json:"loading"`
		Held struct {
			Blocks, Cells, Tables, Waves int
			WaveBytes                    float64
			Kept                         int
			KeptBytes                    float64
		} `json:"held"`
		Portal, Cell struct {
			Cached, InFlightPeak float64
			CachedRecords        int
			Requests             int
		}
		Mixer struct {
			Cached float64
			Clips  int
		} `json:"mixer"`
		Samples struct{ Total, Free float64 } `json:"samples"` // the pool of sample blocks
	} `json:"stats"`
	Voices, Sounds, Held int
	Where                string
	JSHeap               *struct{ Used, Total float64 } `json:"jsHeap"`
	CDPHeap              *struct {
		UsedSize, TotalSize float64
		BackingStorageSize  float64 `json:"backingStorageSize"`
	} `json:"cdpHeap"`
	Renderer      struct{ RSS, HWM float64 } `json:"renderer"`
	Tap           Tap                        `json:"tap"`
	Epoch         int                        `json:"epoch"`
	Instances     int                        `json:"instances"`
	Alive         int                        `json:"alive"` // instances still in memory (not yet collected)
	Load, Errors  string
	Requests      int `json:"requests"`
	ConsoleErrors int `json:"consoleErrors"`
}

// Tap is the totals of the probe at the destination.
type Tap struct {
	Frames, Sound, Sumsq     float64
	Gaps, GapFrames, Quantum int
	Silences, Steps, MaxGap  int
}

// HeldBytes is what the page's caches hold: decoded waves (in use and
// kept), the record caches of both sources, the mixer's resampled waves.
func (s *Sample) HeldBytes() float64 {
	st := &s.Stats
	return st.Held.WaveBytes + st.Held.KeptBytes + st.Portal.Cached + st.Cell.Cached + st.Mixer.Cached
}

// Jump is a landmark jump: whether the page's instances became gather's
// there, and the record requests the servers saw meanwhile.
type Jump struct {
	T        float64  `json:"t"`
	Name     string   `json:"name"`
	Epoch    int      `json:"epoch"`
	Source   string   `json:"source"`
	Return   bool     `json:"return"`
	Since    *float64 `json:"since"`
	Requests int      `json:"requests"`
	Equal    bool     `json:"equal"`
	SettleMs float64  `json:"settleMs"`
	Checks   int      `json:"checks"`
	Diff     string   `json:"diff"`
	Sounds   int      `json:"sounds"`
}

// Fault is a bad-network case.
type Fault struct {
	Fault    string   `json:"fault"`
	T        float64  `json:"t"`
	Seconds  float64  `json:"seconds"`
	Requests int      `json:"requests"`
	Said     [][2]any `json:"said"`   // the load pill's texts while it lasted, with how often
	Errors   [][2]any `json:"errors"` // the error area's lines
	After    [][2]any `json:"after"`  // the load pill's texts after the network came back
	During   struct {
		MinVoices  int     `json:"minVoices"`
		MaxPending int     `json:"maxPending"`
		RMS        float64 `json:"rms"`
		Secs       float64 `json:"secs"`
	} `json:"during"`
	Healed    *float64 `json:"healed"` // seconds from the network's return to gather's instances, nothing pending
	Checks    int      `json:"checks"`
	HealDiff  string   `json:"healDiff"`
	Sounds    int      `json:"sounds"`
	AfterHeal struct {
		RMS float64 `json:"rms"`
	} `json:"afterHeal"`
	Final json.RawMessage `json:"final"`
}

// Switch is a change of data source, and how long the new one took to play.
type Switch struct {
	T  float64 `json:"t"`
	To string  `json:"to"`
	Ms float64 `json:"ms"`
}

// Gap is one dropout run at the destination: when, and its length.
type Gap struct {
	T      float64 `json:"t"`
	Phase  string  `json:"phase"`
	Frames int     `json:"frames"`
}

// Toggle is a move of the volume slider or of the enable box.
type Toggle struct {
	T       float64  `json:"t"`
	Volume  *float64 `json:"volume"`
	Enabled *bool    `json:"enabled"`
}

// Console is a console error or warning, or an uncaught page error.
type Console struct {
	T     float64 `json:"t"`
	Phase string  `json:"phase"`
	Type  string  `json:"type"`
	Text  string  `json:"text"`
	URL   string  `json:"url"`
}

// Parsed is a Result's lines by kind.
type Parsed struct {
	Samples  []Sample
	Jumps    []Jump
	Faults   []Fault
	Console  []Console
	Switches []Switch
	// Gaps are the dropouts at the destination, each at the script's
	// clock; Toggles the volume and enable moves, on the same clock.
	Gaps    []Gap
	Toggles []Toggle
	Errors  []string // the script's own failures
	Ended   bool
	// Alive is how many instances were still in memory at the end, after
	// forced collections (the current one: 1).
	Alive int
}

// Parse sorts the result's lines by kind.
func (r *Result) Parse() (*Parsed, error) {
	p := &Parsed{}
	for _, l := range r.Lines {
		var err error
		switch l.Kind {
		case "sample":
			err = appendLine(l.Raw, &p.Samples)
		case "jump":
			err = appendLine(l.Raw, &p.Jumps)
		case "fault":
			err = appendLine(l.Raw, &p.Faults)
		case "console":
			err = appendLine(l.Raw, &p.Console)
		case "switch":
			err = appendLine(l.Raw, &p.Switches)
		case "gap":
			err = appendLine(l.Raw, &p.Gaps)
		case "toggle":
			err = appendLine(l.Raw, &p.Toggles)
		case "error":
			var e struct{ Error string }
			err = json.Unmarshal(l.Raw, &e)
			p.Errors = append(p.Errors, e.Error)
		case "end":
			var e struct{ Alive int }
			err = json.Unmarshal(l.Raw, &e)
			p.Ended, p.Alive = true, e.Alive
		}
		if err != nil {
			return nil, fmt.Errorf("%s line: %w", l.Kind, err)
		}
	}
	return p, nil
}

// appendLine decodes one line into the next element of to.
func appendLine[T any](raw json.RawMessage, to *[]T) error {
	var v T
	err := json.Unmarshal(raw, &v)
	*to = append(*to, v)
	return err
}

// Summary is the soak's closing figures against its targets.
type Summary struct {
	Minutes float64
	// At5 and End are the samples nearest 5 minutes in and the last;
	// Peak5 and PeakEnd the most each figure reached up to 5 minutes and
	// over the last 5 (the wasm's memory only grows, but a source switch
	// makes a new instance).
	At5, End        *Sample
	WasmRatio       float64 // the wasm's memory, end ÷ 5 min
	GoLiveRatio     float64 // the Go heap found live, peak of the last 5 min ÷ peak of the first 5
	HeldRatio       float64 // the caches' bytes, the same way
	Jumps, Equal    int     // landmark jumps, and those whose instances became gather's
	Returns         int     // jumps back to a place visited before by the same instance
	ReturnRequests  int     // record requests during those returns
	ReturnsFetching int     // returns that fetched anything
	Records         int     // record requests the servers saw in all
	Gaps, Steps     int     // dropouts at the destination: inserted silences, and clicks
	Quantum         int     // gaps of whole render quanta
	GapsPerMinute   float64 // over the soak
	// GapsAfter counts the gaps by the event that came last before each,
	// within GapWindow: "jump", "switch", "enable on", "enable off",
	// "volume", or "walk" (none: only the walk's steps).
	GapsAfter        map[string]int
	ConsoleErrors    []Console
	Instances        int // instances the page made (source switches)
	RendererEnd      float64
	RendererPeak     float64
	WasmPeak, GoPeak float64
}

// Summarize computes the closing figures of the soak phase.
func (p *Parsed) Summarize(res *Result) Summary {
	var s Summary
	var soak []Sample
	for i := range p.Samples {
		if p.Samples[i].Phase == "soak" {
			soak = append(soak, p.Samples[i])
		}
	}
	if len(soak) == 0 {
		return s
	}
	first, last := soak[0], soak[len(soak)-1]
	s.End = &soak[len(soak)-1]
	s.Minutes = (last.T - first.T) / 60
	best := math.Inf(1)
	for i := range soak {
		if d := math.Abs(soak[i].T - first.T - 300); d < best {
			best, s.At5 = d, &soak[i]
		}
	}
	peak := func(from, to float64, f func(*Sample) float64) float64 {
		m := 0.0
		for i := range soak {
			if t := soak[i].T - first.T; t >= from && t <= to {
				m = max(m, f(&soak[i]))
			}
		}
		return m
	}
	endT := last.T - first.T
	ratio := func(f func(*Sample) float64) float64 {
		a, b := peak(0, 300, f), peak(endT-300, endT, f)
		if a == 0 {
			return 0
		}
		return b / a
	}
	s.WasmRatio = last.Stats.WasmMemory / s.At5.Stats.WasmMemory
	s.GoLiveRatio = ratio(func(x *Sample) float64 { return x.Stats.Go.Live })
	s.HeldRatio = ratio(func(x *Sample) float64 { return x.HeldBytes() })
	for i := range soak {
		s.RendererPeak = max(s.RendererPeak, soak[i].Renderer.RSS)
		s.WasmPeak = max(s.WasmPeak, soak[i].Stats.WasmMemory)
		s.GoPeak = max(s.GoPeak, soak[i].Stats.Go.Total)
	}
	s.RendererEnd = last.Renderer.RSS
	s.Gaps, s.Steps, s.Quantum = last.Tap.Gaps-first.Tap.Gaps, last.Tap.Steps-first.Tap.Steps, last.Tap.Quantum-first.Tap.Quantum
	if s.Minutes > 0 {
		s.GapsPerMinute = float64(s.Gaps) / s.Minutes
	}
	s.Instances = last.Instances
	s.GapsAfter = p.gapsAfter()
	for _, j := range p.Jumps {
		s.Jumps++
		if j.Equal {
			s.Equal++
		}
		if j.Return {
			s.Returns++
			s.ReturnRequests += j.Requests
			if j.Requests > 0 {
				s.ReturnsFetching++
			}
		}
	}
	s.Records = len(res.Requests)
	for _, c := range p.Console {
		if c.Phase == "soak" && c.Type != "warning" {
			s.ConsoleErrors = append(s.ConsoleErrors, c)
		}
	}
	return s
}

// GapWindow is how long after an event a gap still counts as its: a
// jump's rebuild, its fetches and decodes are over within it (settleMs).
const GapWindow = 5.0

// gapsAfter attributes each gap of the soak phase to the last event
// before it (see Summary.GapsAfter).
func (p *Parsed) gapsAfter() map[string]int {
	type event struct {
		t    float64
		what string
	}
	var evs []event
	for _, j := range p.Jumps {
		evs = append(evs, event{j.T, "jump"})
	}
	for _, w := range p.Switches {
		evs = append(evs, event{w.T, "switch"})
	}
	for _, t := range p.Toggles {
		switch {
		case t.Enabled != nil && *t.Enabled:
			evs = append(evs, event{t.T, "enable on"})
		case t.Enabled != nil:
			evs = append(evs, event{t.T, "enable off"})
		default:
			evs = append(evs, event{t.T, "volume"})
		}
	}
	out := map[string]int{}
	for _, g := range p.Gaps {
		if g.Phase != "soak" {
			continue
		}
		what, at := "walk", math.Inf(-1)
		for _, e := range evs {
			if e.t <= g.T && e.t > at && g.T-e.t <= GapWindow {
				what, at = e.what, e.t
			}
		}
		out[what]++
	}
	return out
}

// Row is one line of the figures table for a sample.
func Row(s *Sample) string {
	mib := func(v float64) string { return fmt.Sprintf("%6.1f", v/(1<<20)) }
	js := 0.0
	if s.JSHeap != nil {
		js = s.JSHeap.Used
	}
	st := &s.Stats
	return fmt.Sprintf("%6.1f %-6s %s %s %s %s %s %s %s %s %s %s %s %6d %6d %5d %5d %4d %3d",
		s.T/60, s.Source, mib(st.WasmMemory), mib(st.Go.Live), mib(st.Go.Total), mib(st.Go.Free+st.Go.Released),
		mib(js), mib(s.Renderer.RSS),
		mib(st.Held.WaveBytes), mib(st.Held.KeptBytes), mib(st.Portal.Cached+st.Cell.Cached), mib(st.Mixer.Cached),
		mib(st.Samples.Total), st.Loading.Records, s.Requests, s.Tap.Gaps, s.Tap.Steps, s.Voices, s.ConsoleErrors)
}

// Header is the figures table's header, for Row. idle is the Go page
// heap's free and released pages (fragmentation shows there); pool is the
// sample blocks made (core/samples), part of GoLive.
const Header = "   min source  wasm  GoLive GoTotal   idle JSheap    tab  waves   kept records mixer   pool  fetched  netreq  gaps steps vcs err\n" +
	"                 MiB     MiB     MiB    MiB    MiB    MiB    MiB    MiB    MiB    MiB    MiB  (records)"

// Stalled counts the answers stalled mid-body during fault f, and of the
// waves they were, those asked for again later and answered whole: a body
// that did not verify must not have been kept in its place.
func Stalled(reqs []Request, f Fault) (stalled, again int) {
	paths := map[string]int64{}
	for _, q := range reqs {
		if q.Fault == FaultStall && !q.Whole {
			stalled++
			if _, ok := paths[q.Path]; !ok {
				paths[q.Path] = q.At
			}
		}
	}
	for p := range paths {
		for _, q := range reqs {
			if q.Path == p && q.Whole && q.Status == 200 && q.Fault != FaultStall {
				again++
				break
			}
		}
	}
	return stalled, again
}
