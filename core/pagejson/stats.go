package pagejson

import (
	"strconv"

	"acambient/core/session"
	"acambient/datfetch"
)

// Page is what the page's stats() reports (www/ambient.d.ts Stats): the
// Go runtime's memory, and what each holder of bytes counts as holding.
// For long sessions (bench/soak): cheap enough to ask every few seconds.
type Page struct {
	Go      GoMemory           `json:"go"`
	Loading session.Stats      `json:"loading"`
	Held    session.HeldStats  `json:"held"`
	Portal  datfetch.HTTPStats `json:"portal"`
	Cell    datfetch.HTTPStats `json:"cell"`
	Mixer   Mixer              `json:"mixer"`
	Samples Samples            `json:"samples"`
}

// GoMemory is the Go runtime's own figures (runtime/metrics, read without
// stopping the world). The wasm's linear memory only grows, so the peak of
// Total is what the tab keeps; Live is the heap the last GC found in use.
type GoMemory struct {
	Live       uint64 `json:"live"`       // /gc/heap/live: marked live by the last GC
	Objects    uint64 `json:"objects"`    // /memory/classes/heap/objects: live and not yet swept
	Free       uint64 `json:"free"`       // /memory/classes/heap/free: mapped, free, not released
	Released   uint64 `json:"released"`   // /memory/classes/heap/released
	Goal       uint64 `json:"goal"`       // /gc/heap/goal: the heap size the next GC aims at
	Stacks     uint64 `json:"stacks"`     // /memory/classes/heap/stacks
	Total      uint64 `json:"total"`      // /memory/classes/total: everything the runtime mapped
	Allocated  uint64 `json:"allocated"`  // /gc/heap/allocs: allocated since start
	GCs        uint64 `json:"gcs"`        // /gc/cycles/total
	Goroutines uint64 `json:"goroutines"` // /sched/goroutines
}

// Mixer is what the mixer holds.
type Mixer struct {
	Cached int64 `json:"cached"` // resampled waves kept (mix.Options.CacheBytes bounds it)
	Clips  int   `json:"clips"`
}

// Samples is the pool of sample blocks the decoded waves and the mixer's
// resampled waves are held in (core/samples): the blocks it made, in use
// and free. Part of the Go heap's live bytes, not beside them.
type Samples struct {
	Total int64 `json:"total"` // every block made: the most ever held at once
	Free  int64 `json:"free"`  // of those, waiting for the next wave
}

// PageStats is stats()'s JSON.
func PageStats(b []byte, p Page) ([]byte, error) {
	g := p.Go
	b = append(b, `{"go":`...)
	b = fields(b, []string{"live", "objects", "free", "released", "goal", "stacks", "total", "allocated", "gcs", "goroutines"},
		[]int64{int64(g.Live), int64(g.Objects), int64(g.Free), int64(g.Released), int64(g.Goal), int64(g.Stacks),
			int64(g.Total), int64(g.Allocated), int64(g.GCs), int64(g.Goroutines)})
	b = append(b, `,"loading":`...)
	b = stats(b, p.Loading)
	h := p.Held
	b = append(b, `,"held":`...)
	b = fields(b, []string{"blocks", "cells", "tables", "waves", "waveBytes", "kept", "keptBytes"},
		[]int64{int64(h.Blocks), int64(h.Cells), int64(h.Tables), int64(h.Waves), h.WaveBytes, int64(h.Kept), h.KeptBytes})
	for _, src := range []struct {
		key string
		s   datfetch.HTTPStats
	}{{`,"portal":`, p.Portal}, {`,"cell":`, p.Cell}} {
		s := src.s
		b = append(b, src.key...)
		b = fields(b, []string{"inFlight", "inFlightPeak", "inFlightMax", "cached", "cachedRecords", "requests", "received"},
			[]int64{s.InFlight, s.InFlightPeak, s.InFlightMax, s.Cached, int64(s.CachedRecords), s.Requests, s.Received})
	}
	b = append(b, `,"mixer":`...)
	b = fields(b, []string{"cached", "clips"}, []int64{p.Mixer.Cached, int64(p.Mixer.Clips)})
	b = append(b, `,"samples":`...)
	b = fields(b, []string{"total", "free"}, []int64{p.Samples.Total, p.Samples.Free})
	return append(b, '}'), nil
}

// fields writes an object of integers, keys in order. A uint64 past
// MaxInt64 would be written negative: no figure here comes near.
func fields(b []byte, keys []string, vs []int64) []byte {
	for i, k := range keys {
		if i == 0 {
			b = append(b, '{')
		} else {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, k)
		b = append(b, ':')
		b = strconv.AppendInt(b, vs[i], 10)
	}
	return append(b, '}')
}
