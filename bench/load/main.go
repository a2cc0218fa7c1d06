// Command load measures serve against a plain static file server on loopback:
// it exports the world (the demo by default), serves the export with
// http.FileServer and the world with serve's handler, drives both with the
// same weighted record mix at the same concurrency for a bounded time, and
// prints req/s, latency percentiles, errors and the serve/static ratio.
//
//	go run ./bench/load [-c 32] [-d 5s] [-portal FILE -cell FILE]
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"acambient/core/dat"
	"acambient/core/demo"
	"acambient/datfetch"
	"acambient/server"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func run() error {
	conc := flag.Int("c", 32, "concurrent clients")
	dur := flag.Duration("d", 5*time.Second, "measured time per server")
	warm := flag.Duration("warm", 500*time.Millisecond, "unmeasured warm-up per server")
	rounds := flag.Int("rounds", 10, "the measured time is split into this many alternating serve/static slices, so both see the same background load")
	portalPath := flag.String("portal", "", "retail client_portal.dat (default: the demo world)")
	cellPath := flag.String("cell", "", "retail client_cell_1.dat")
	flag.Parse()
	if *dur <= 0 || *dur > 5*time.Minute || *conc < 1 || *conc > 1024 || *rounds < 1 || *rounds > 1000 {
		return errors.New("want 0 < -d ≤ 5m, 1 ≤ -c ≤ 1024 and 1 ≤ -rounds ≤ 1000")
	}

	portal, cell, name, err := sources(*portalPath, *cellPath)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "acambient-load-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	res, err := server.Export(ctx, server.ExportOptions{Portal: portal, Cell: cell, Name: name, Out: dir,
		Warnf: func(f string, a ...any) { log.Printf("export warning: "+f, a...) }})
	if err != nil {
		return err
	}
	mix, err := newMix(dir)
	if err != nil {
		return err
	}
	fmt.Printf("world: %s; exported %d region, %d soundtables, %d waves, %d landblocks, %d envcells (%.1f MB)\n",
		name, res.Regions, res.SoundTables, res.Waves, res.LandBlocks, res.EnvCells, float64(res.Bytes)/1e6)
	fmt.Printf("mix: %s; %d clients, %v each in %d alternating slices (+%v warm-up), loopback, GOMAXPROCS %d\n",
		mix, *conc, *dur, *rounds, *warm, runtime.GOMAXPROCS(0))

	quiet := log.New(io.Discard, "", 0)
	serveURL, stopServe, err := listen(server.New(server.Options{Portal: portal, Cell: cell, Name: name, CORS: "*", Log: quiet}))
	if err != nil {
		return err
	}
	defer stopServe()
	staticURL, stopStatic, err := listen(http.FileServer(http.Dir(dir)))
	if err != nil {
		return err
	}
	defer stopStatic()

	runtime.GC()
	drive(serveURL, mix, *conc, *warm)
	drive(staticURL, mix, *conc, *warm)
	var s, t stats
	slice := *dur / time.Duration(*rounds)
	for i := range *rounds {
		if i%2 == 0 {
			s.add(drive(serveURL, mix, *conc, slice))
			t.add(drive(staticURL, mix, *conc, slice))
		} else {
			t.add(drive(staticURL, mix, *conc, slice))
			s.add(drive(serveURL, mix, *conc, slice))
		}
	}
	slices.Sort(s.lat)
	slices.Sort(t.lat)
	heap := heapAfterGC()

	fmt.Printf("\n%-8s %10s %10s %10s %10s %8s\n", "server", "req/s", "MB/s", "p50", "p99", "errors")
	for _, r := range []struct {
		name string
		st   stats
	}{{"serve", s}, {"static", t}} {
		fmt.Printf("%-8s %10.0f %10.1f %10v %10v %8d\n", r.name, r.st.rps(), r.st.mbps(), r.st.pct(50), r.st.pct(99), r.st.errors)
	}
	ratio := s.rps() / t.rps()
	verdict := "meets"
	if ratio < 0.8 || s.errors+t.errors > 0 {
		verdict = "MISSES"
	}
	fmt.Printf("\nserve/static = %.2f (%s the target ≥ 0.80 with zero errors)\n", ratio, verdict)
	fmt.Printf("after the runs: Go heap in use %.1f MB after GC (world %.1f MB held in memory); process RSS %s, peak %s\n",
		float64(heap)/1e6, float64(worldBytes(portal, cell))/1e6, procStatus("VmRSS"), procStatus("VmHWM"))
	if s.errors+t.errors > 0 {
		for _, e := range append(s.samples, t.samples...) {
			fmt.Println("  error:", e)
		}
		return errors.New("requests failed")
	}
	return nil
}

// sources are the demo world, or a pair of retail dats.
func sources(portal, cell string) (p, c datfetch.Lister, name string, err error) {
	if portal == "" && cell == "" {
		w, err := demo.Build()
		if err != nil {
			return nil, nil, "", fmt.Errorf("demo world: %w", err)
		}
		return datfetch.NewMemory(w.Portal), datfetch.NewMemory(w.Cell), "demo world", nil
	}
	pd, err := datfetch.OpenDat(portal)
	if err != nil {
		return nil, nil, "", err
	}
	cd, err := datfetch.OpenDat(cell)
	if err != nil {
		return nil, nil, "", err
	}
	return pd, cd, portal + " + " + cell, nil
}

// mix is a client's record traffic: mostly the landblock ring and the waves
// of its SoundTables, now and then an EnvCell, a table, the region.
type mix struct {
	kinds   []kindPool
	weights int
}

type kindPool struct {
	name   string
	weight int
	prefix string // route
	ids    []uint32
	sizes  map[uint32]int
}

func newMix(dir string) (*mix, error) {
	m := &mix{}
	add := func(name string, weight int, route, sub string, keep func(uint32) bool) error {
		b, err := os.ReadFile(filepath.Join(dir, sub, "index.txt"))
		if err != nil {
			return err
		}
		k := kindPool{name: name, weight: weight, prefix: route, sizes: map[uint32]int{}}
		for _, line := range strings.Fields(string(b)) {
			var id uint32
			if _, err := fmt.Sscanf(line, "0x%X", &id); err != nil || !keep(id) {
				continue
			}
			st, err := os.Stat(filepath.Join(dir, sub, line))
			if err != nil {
				return err
			}
			k.ids = append(k.ids, id)
			k.sizes[id] = int(st.Size())
		}
		if len(k.ids) > 0 {
			m.kinds = append(m.kinds, k)
			m.weights += weight
		}
		return nil
	}
	for _, a := range []struct {
		name       string
		weight     int
		route, sub string
		keep       func(uint32) bool
	}{
		{"landblock", 50, "/cell/files/", "cell/files", func(id uint32) bool { return dat.CellKind(id) == dat.KindLandBlock }},
		{"wave", 35, "/files/", "files", func(id uint32) bool { return dat.PortalKind(id) == dat.KindWave }},
		{"envcell", 8, "/cell/files/", "cell/files", func(id uint32) bool { return dat.CellKind(id) == dat.KindEnvCell }},
		{"soundtable", 5, "/files/", "files", func(id uint32) bool { return dat.PortalKind(id) == dat.KindSoundTable }},
		{"region", 2, "/files/", "files", func(id uint32) bool { return id == dat.RegionID }},
	} {
		if err := add(a.name, a.weight, a.route, a.sub, a.keep); err != nil {
			return nil, err
		}
	}
	if m.weights == 0 {
		return nil, errors.New("the export holds no records")
	}
	return m, nil
}

func (m *mix) String() string {
	var parts []string
	for _, k := range m.kinds {
		parts = append(parts, fmt.Sprintf("%d%% %s (%d)", k.weight*100/m.weights, k.name, len(k.ids)))
	}
	return strings.Join(parts, ", ")
}

// pick returns a route and the size its answer must have.
func (m *mix) pick(r *rand.Rand) (string, int) {
	n := r.IntN(m.weights)
	for _, k := range m.kinds {
		if n < k.weight {
			id := k.ids[r.IntN(len(k.ids))]
			return fmt.Sprintf("%s0x%08X", k.prefix, id), k.sizes[id]
		}
		n -= k.weight
	}
	panic("unreachable")
}

type stats struct {
	n, errors int
	bytes     int64
	elapsed   time.Duration
	lat       []time.Duration // sorted
	samples   []string        // a few error messages
}

func (s *stats) add(o stats) {
	s.n += o.n
	s.errors += o.errors
	s.bytes += o.bytes
	s.elapsed += o.elapsed
	s.lat = append(s.lat, o.lat...)
	if len(s.samples) < 5 {
		s.samples = append(s.samples, o.samples...)
	}
}

func (s stats) rps() float64  { return float64(s.n) / s.elapsed.Seconds() }
func (s stats) mbps() float64 { return float64(s.bytes) / 1e6 / s.elapsed.Seconds() }
func (s stats) pct(p int) time.Duration {
	if len(s.lat) == 0 {
		return 0
	}
	return s.lat[min(len(s.lat)-1, len(s.lat)*p/100)].Round(time.Microsecond)
}

// drive runs conc clients against base for dur. The client keeps its
// connections between calls to the same base, as a browser would.
func drive(base string, m *mix, conc int, dur time.Duration) stats {
	client := clients[base]
	if client == nil {
		client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc, DisableCompression: true}, Timeout: 30 * time.Second}
		clients[base] = client
	}
	var (
		mu  sync.Mutex
		all stats
		wg  sync.WaitGroup
	)
	start := time.Now()
	stopAt := start.Add(dur)
	seed := rand.Uint64()
	for w := range conc {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), seed))
			var mine stats
			buf := make([]byte, 0, 64<<10)
			for {
				t0 := time.Now()
				if t0.After(stopAt) {
					break
				}
				route, size := m.pick(r)
				n, err := get(client, base+route, &buf)
				if err == nil && n != size {
					err = fmt.Errorf("%s: %d bytes, want %d", route, n, size)
				}
				mine.n++
				mine.lat = append(mine.lat, time.Since(t0))
				mine.bytes += int64(n)
				if err != nil {
					mine.errors++
					if len(mine.samples) < 3 {
						mine.samples = append(mine.samples, err.Error())
					}
				}
			}
			mu.Lock()
			all.n += mine.n
			all.errors += mine.errors
			all.bytes += mine.bytes
			all.lat = append(all.lat, mine.lat...)
			all.samples = append(all.samples, mine.samples...)
			mu.Unlock()
		})
	}
	wg.Wait()
	all.elapsed = time.Since(start)
	return all
}

var clients = map[string]*http.Client{}

func get(c *http.Client, url string, buf *[]byte) (int, error) {
	resp, err := c.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b := bytes.NewBuffer((*buf)[:0])
	n, err := b.ReadFrom(resp.Body)
	*buf = b.Bytes()
	if err != nil {
		return int(n), err
	}
	if resp.StatusCode != http.StatusOK {
		return int(n), fmt.Errorf("%s: %s", url, resp.Status)
	}
	return int(n), nil
}

// listen serves h on a random loopback port.
func listen(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := server.NewHTTPServer(h, server.DefaultLimits(), log.New(io.Discard, "", 0))
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

func heapAfterGC() uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

func worldBytes(srcs ...datfetch.Lister) int64 {
	var n int64
	for _, s := range srcs {
		if _, ok := s.(*datfetch.Memory); !ok {
			return 0 // a dat file is read on demand, not held
		}
		ids, _ := s.IDs(context.Background())
		for _, id := range ids {
			b, _ := s.Get(context.Background(), id)
			n += int64(len(b))
		}
	}
	return n
}

// procStatus reads a size line of /proc/self/status (Linux); "n/a" elsewhere.
func procStatus(key string) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "n/a"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "n/a"
}
