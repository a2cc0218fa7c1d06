//go:build js && wasm

package main

import (
	"runtime/metrics"

	"acambient/core/session"
	"acambient/datfetch"
)

// pageStats is what the page's stats() reports (www/ambient.d.ts Stats):
// the Go runtime's memory, and what each holder of bytes counts as holding.
// For long sessions (bench/soak): cheap enough to ask every few seconds.
type pageStats struct {
	Go      goMemory           `json:"go"`
	Loading session.Stats      `json:"loading"`
	Held    session.HeldStats  `json:"held"`
	Portal  datfetch.HTTPStats `json:"portal"`
	Cell    datfetch.HTTPStats `json:"cell"`
	Mixer   mixerStats         `json:"mixer"`
}

// goMemory is the Go runtime's own figures (runtime/metrics, read without
// stopping the world). The wasm's linear memory only grows, so the peak of
// Total is what the tab keeps; Live is the heap the last GC found in use.
type goMemory struct {
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

type mixerStats struct {
	Cached int64 `json:"cached"` // resampled waves kept (mix.Options.CacheBytes bounds it)
	Clips  int   `json:"clips"`
}

var goMetrics = []string{
	"/gc/heap/live:bytes", "/memory/classes/heap/objects:bytes", "/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes", "/gc/heap/goal:bytes", "/memory/classes/heap/stacks:bytes",
	"/memory/classes/total:bytes", "/gc/heap/allocs:bytes", "/gc/cycles/total:gc-cycles", "/sched/goroutines:goroutines",
}

func readGoMemory() goMemory {
	s := make([]metrics.Sample, len(goMetrics))
	for i, n := range goMetrics {
		s[i].Name = n
	}
	metrics.Read(s)
	v := func(i int) uint64 {
		if s[i].Value.Kind() == metrics.KindUint64 {
			return s[i].Value.Uint64()
		}
		return 0
	}
	return goMemory{Live: v(0), Objects: v(1), Free: v(2), Released: v(3), Goal: v(4), Stacks: v(5),
		Total: v(6), Allocated: v(7), GCs: v(8), Goroutines: v(9)}
}

func (a *api) stats() pageStats {
	st := pageStats{Go: readGoMemory(), Loading: a.host.Stats(), Held: a.host.Held(),
		Portal: a.portal.Stats(), Cell: a.cell.Stats()}
	st.Mixer.Cached, st.Mixer.Clips = a.mixer.Cached()
	return st
}
