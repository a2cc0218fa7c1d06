//go:build js && wasm

package main

import (
	"runtime/metrics"

	"acambient/core/pageval"
	"acambient/core/samples"
)

var goMetrics = []string{
	"/gc/heap/live:bytes", "/memory/classes/heap/objects:bytes", "/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes", "/gc/heap/goal:bytes", "/memory/classes/heap/stacks:bytes",
	"/memory/classes/total:bytes", "/gc/heap/allocs:bytes", "/gc/cycles/total:gc-cycles", "/sched/goroutines:goroutines",
}

func readGoMemory() pageval.GoMemory {
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
	return pageval.GoMemory{Live: v(0), Objects: v(1), Free: v(2), Released: v(3), Goal: v(4), Stacks: v(5),
		Total: v(6), Allocated: v(7), GCs: v(8), Goroutines: v(9)}
}

func (a *api) stats() pageval.Stats {
	st := pageval.Stats{Go: readGoMemory(), Loading: pageval.LoadingOf(a.host.Stats()), Held: pageval.HeldOf(a.host.Held()),
		Portal: pageval.HTTPOf(a.portal.Stats()), Cell: pageval.HTTPOf(a.cell.Stats())}
	st.Mixer.Cached, st.Mixer.Clips = a.mixer.Cached()
	pool := samples.Stats()
	st.Samples = pageval.Samples{Total: pool.Total, Free: pool.Free}
	return st
}
