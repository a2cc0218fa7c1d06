//go:build js && wasm

// Command page is bench/tabmem's wasm: it reads n "waves" at once from the
// lying server through datfetch's HTTP source over fetch, as the page's
// loader reads records, and reports what came back and the Go runtime's
// memory. Only NewHTTP, HTTPOptions{CacheBytes} and Get are used, so that
// the same main builds against datfetch before the budget (bench/tabmem's
// -base) for the figures without it.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"syscall/js"
	"time"

	"acambient/datfetch"
)

func main() {
	q, _ := url.ParseQuery(strings.TrimPrefix(js.Global().Get("location").Get("search").String(), "?"))
	n := 1
	fmt.Sscan(q.Get("n"), &n)
	base := js.Global().Get("location").Get("origin").String() + "/" + q.Get("mode") + "/files/"
	// As the page opens its sources (wasm/main.go: 16 MiB of cache each).
	h := datfetch.NewHTTP(base, datfetch.HTTPOptions{CacheBytes: 16 << 20})

	start := time.Now()
	errs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := h.Get(context.Background(), 0x0A000101+uint32(i))
			if err != nil {
				errs[i] = err.Error()
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	out, _ := json.Marshal(map[string]any{
		"errors": errs, "ms": took.Milliseconds(),
		// Sys is what the Go runtime took from the wasm memory; the rest
		// is the heap's high-water mark as the runtime sees it.
		"goSys": m.Sys, "goHeapSys": m.HeapSys, "goHeapInuse": m.HeapInuse, "goTotalAlloc": m.TotalAlloc,
		"inFlightPeak": inFlightPeak(h),
	})
	js.Global().Call("done", string(out))
	select {} // keep the instance (and its memory) for the driver to read
}

// inFlightPeak is the source's own count of the most it held for answers
// under way (HTTP.Stats), or -1 for a datfetch without it; by reflection,
// so that the page builds against both.
func inFlightPeak(h *datfetch.HTTP) int64 {
	m := reflect.ValueOf(h).MethodByName("Stats")
	if !m.IsValid() {
		return -1
	}
	return m.Call(nil)[0].FieldByName("InFlightPeak").Int()
}
