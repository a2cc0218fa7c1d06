package pageval

import (
	"acambient/core/session"
	"acambient/datfetch"
)

// Stats is what the page's stats() reports (www/ambient.d.ts Stats): the
// Go runtime's memory, and what each holder of bytes counts as holding.
// For long sessions (bench/soak): cheap enough to ask every few seconds.
type Stats struct {
	Go      GoMemory `js:"go"`
	Loading Object   `js:"loading"`
	Held    Held     `js:"held"`
	Portal  HTTP     `js:"portal"`
	Cell    HTTP     `js:"cell"`
	Mixer   Mixer    `js:"mixer"`
	Samples Samples  `js:"samples"`
}

// GoMemory is the Go runtime's own figures (runtime/metrics, read without
// stopping the world). The wasm's linear memory only grows, so the peak of
// Total is what the tab keeps; Live is the heap the last GC found in use.
type GoMemory struct {
	Live       uint64 `js:"live" json:"live"`             // /gc/heap/live: marked live by the last GC
	Objects    uint64 `js:"objects" json:"objects"`       // /memory/classes/heap/objects: live and not yet swept
	Free       uint64 `js:"free" json:"free"`             // /memory/classes/heap/free: mapped, free, not released
	Released   uint64 `js:"released" json:"released"`     // /memory/classes/heap/released
	Goal       uint64 `js:"goal" json:"goal"`             // /gc/heap/goal: the heap size the next GC aims at
	Stacks     uint64 `js:"stacks" json:"stacks"`         // /memory/classes/heap/stacks
	Total      uint64 `js:"total" json:"total"`           // /memory/classes/total: everything the runtime mapped
	Allocated  uint64 `js:"allocated" json:"allocated"`   // /gc/heap/allocs: allocated since start
	GCs        uint64 `js:"gcs" json:"gcs"`               // /gc/cycles/total
	Goroutines uint64 `js:"goroutines" json:"goroutines"` // /sched/goroutines
}

// Held is what the host holds decoded (session.HeldStats).
type Held struct {
	Blocks    int   `js:"blocks"`
	Cells     int   `js:"cells"`
	Tables    int   `js:"tables"`
	Waves     int   `js:"waves"`
	WaveBytes int64 `js:"waveBytes"`
	Kept      int   `js:"kept"`
	KeptBytes int64 `js:"keptBytes"`
}

// HTTP is what a record source holds and sent (datfetch.HTTPStats).
type HTTP struct {
	InFlight      int64 `js:"inFlight"`
	InFlightPeak  int64 `js:"inFlightPeak"`
	InFlightMax   int64 `js:"inFlightMax"`
	Cached        int64 `js:"cached"`
	CachedRecords int   `js:"cachedRecords"`
	Requests      int64 `js:"requests"`
	Received      int64 `js:"received"`
}

// Mixer is what the mixer holds.
type Mixer struct {
	Cached int64 `js:"cached" json:"cached"` // resampled waves kept (mix.Options.CacheBytes bounds it)
	Clips  int   `js:"clips" json:"clips"`
}

// Samples is the pool of sample blocks the decoded waves and the mixer's
// resampled waves are held in (core/samples): the blocks it made, in use
// and free. Part of the Go heap's live bytes, not beside them.
type Samples struct {
	Total int64 `js:"total" json:"total"` // every block made: the most ever held at once
	Free  int64 `js:"free" json:"free"`   // of those, waiting for the next wave
}

// HeldOf is h's value.
func HeldOf(h session.HeldStats) Held {
	return Held{Blocks: h.Blocks, Cells: h.Cells, Tables: h.Tables, Waves: h.Waves, WaveBytes: h.WaveBytes,
		Kept: h.Kept, KeptBytes: h.KeptBytes}
}

// HTTPOf is s's value.
func HTTPOf(s datfetch.HTTPStats) HTTP {
	return HTTP{InFlight: s.InFlight, InFlightPeak: s.InFlightPeak, InFlightMax: s.InFlightMax, Cached: s.Cached,
		CachedRecords: s.CachedRecords, Requests: s.Requests, Received: s.Received}
}
