// Command load measures serve against a plain static file server on loopback:
// it exports the world (the demo by default), runs serve (the real binary,
// built first) over the world and http.FileServer over the export, each in
// its own process, drives both with the same record mix at the same
// concurrency for a bounded time, and prints req/s, latency percentiles,
// errors, the serve/static ratio and each server's resident memory.
//
//	go run ./bench/load [-c 32] [-d 5s] [-portal FILE -cell FILE]
//	go run ./bench/load -scattered 800000 [-soak 2000000]
//
// -scattered N generates the synthetic N-entry cell dat of issue 12
// (internal/testkit/scatterdat, 780 MiB for 800k) and the demo portal as a
// dat in a temporary folder, and requests uniformly random /cell/files/{id}.
// -soak N then drives serve alone until it has answered N requests and
// reports its resident memory. -keep DIR keeps the dats and the export for
// the next run with the same data flags.
package main

import (
	"bufio"
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
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"acambient/core/dat"
	"acambient/core/demo"
	"acambient/datfetch/datfile"
	"acambient/datfetch/source"
	"acambient/internal/export"
	"acambient/internal/testkit/scatterdat"
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
	scattered := flag.Int("scattered", 0, "generate a synthetic cell dat of this many entries (issue 12: 800000) and request random cell records")
	soak := flag.Int("soak", 0, "after the measured slices, drive serve alone until it has answered this many requests, then report its memory")
	cacheMB := flag.Int("cache", -1, "serve's -cache in MiB (default: serve's own default)")
	keep := flag.String("keep", "", "work in this folder and keep it: a later run with the same -keep and -scattered reuses the generated dats and the export (minutes for 800k)")
	staticChild := flag.String("static-child", "", "internal: serve this folder with http.FileServer")
	flag.Parse()
	if *staticChild != "" {
		return serveStatic(*staticChild)
	}
	if *dur <= 0 || *dur > 5*time.Minute || *conc < 1 || *conc > 1024 || *rounds < 1 || *rounds > 1000 {
		return errors.New("want 0 < -d ≤ 5m, 1 ≤ -c ≤ 1024 and 1 ≤ -rounds ≤ 1000")
	}
	key := runKey(*scattered, *portalPath, *cellPath)
	dir, reuse, err := workDir(*keep, key)
	if err != nil {
		return err
	}
	if *keep == "" {
		defer os.RemoveAll(dir)
	}
	if *scattered > 0 {
		if *portalPath != "" || *cellPath != "" {
			return errors.New("-scattered makes its own dats: give no -portal or -cell")
		}
		t0 := time.Now()
		if reuse {
			*portalPath, *cellPath = filepath.Join(dir, "client_portal.dat"), filepath.Join(dir, "client_cell_1.dat")
			fmt.Printf("reusing %s (%d entries) and its export\n", *cellPath, *scattered)
		} else if *portalPath, *cellPath, err = writeScattered(dir, *scattered); err != nil {
			return err
		} else {
			fmt.Printf("generated %s (%d entries) and %s in %v\n", *cellPath, *scattered, *portalPath, time.Since(t0).Round(time.Millisecond))
		}
	}
	serveBin, err := buildServe(dir)
	if err != nil {
		return err
	}

	portal, cell, name, err := sources(*portalPath, *cellPath)
	if err != nil {
		return err
	}
	exportDir := filepath.Join(dir, "export")
	ctx := context.Background()
	t0 := time.Now()
	if !reuse {
		os.RemoveAll(exportDir)
		res, err := export.Write(ctx, export.Options{Portal: portal, Cell: cell, Name: name, Out: exportDir,
			Warnf: func(f string, a ...any) { log.Printf("export warning: "+f, a...) }})
		if err != nil {
			closeSources(portal, cell)
			return err
		}
		fmt.Printf("world: %s; exported %d region, %d soundtables, %d waves, %d landblocks, %d envcells (%.1f MB) in %v\n",
			name, res.Regions, res.SoundTables, res.Waves, res.LandBlocks, res.EnvCells, float64(res.Bytes)/1e6, time.Since(t0).Round(time.Millisecond))
		if *keep != "" {
			if err := os.WriteFile(filepath.Join(dir, doneMark), []byte(key), 0o644); err != nil {
				closeSources(portal, cell)
				return err
			}
		}
	}
	closeSources(portal, cell)
	mix, err := newMix(exportDir, *scattered > 0)
	if err != nil {
		return err
	}
	fmt.Printf("mix: %s; %d clients, %v each in %d alternating slices (+%v warm-up), loopback, GOMAXPROCS %d\n",
		mix, *conc, *dur, *rounds, *warm, runtime.GOMAXPROCS(0))

	serveArgs := []string{"serve", "-addr", "127.0.0.1:0", "-build=false", "-cors", "*"}
	if *cacheMB >= 0 {
		serveArgs = append(serveArgs, "-cache", fmt.Sprint(*cacheMB))
	}
	if *portalPath != "" {
		serveArgs = append(serveArgs, "-portal", *portalPath, "-cell", *cellPath)
	}
	serveProc, err := startChild(serveBin, serveArgs...)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer serveProc.stop()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	staticProc, err := startChild(self, "-static-child", exportDir)
	if err != nil {
		return fmt.Errorf("static: %w", err)
	}
	defer staticProc.stop()
	serveURL, staticURL := serveProc.url, staticProc.url

	runtime.GC()
	drive(serveURL, mix, *conc, *warm)
	drive(staticURL, mix, *conc, *warm)
	var s, t stats
	cpu0 := [2]time.Duration{serveProc.cpu(), staticProc.cpu()}
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
	cpu := [2]time.Duration{serveProc.cpu() - cpu0[0], staticProc.cpu() - cpu0[1]}
	slices.Sort(s.lat)
	slices.Sort(t.lat)

	fmt.Printf("\n%-8s %10s %10s %10s %10s %8s %9s %9s %10s\n", "server", "req/s", "MB/s", "p50", "p99", "errors", "RSS MiB", "peak MiB", "CPU µs/req")
	for i, r := range []struct {
		name string
		st   stats
		p    *child
	}{{"serve", s, serveProc}, {"static", t, staticProc}} {
		fmt.Printf("%-8s %10.0f %10.1f %10v %10v %8d %9.1f %9.1f %10.1f\n", r.name, r.st.rps(), r.st.mbps(), r.st.pct(50), r.st.pct(99), r.st.errors,
			r.p.status("VmRSS"), r.p.status("VmHWM"), float64(cpu[i].Microseconds())/float64(max(r.st.n, 1)))
	}
	ratio := s.rps() / t.rps()
	verdict := "meets"
	if ratio < 0.8 || s.errors+t.errors > 0 {
		verdict = "MISSES"
	}
	fmt.Printf("\nserve/static = %.2f (%s the target ≥ 0.80 with zero errors)\n", ratio, verdict)
	verdict = "meets"
	if s.pct(99) > t.pct(99) {
		verdict = "MISSES"
	}
	fmt.Printf("serve p99 %v, static p99 %v (%s the target serve ≤ static)\n", s.pct(99), t.pct(99), verdict)
	if *soak > 0 {
		n := s.n
		t0 := time.Now()
		for n < *soak {
			st := drive(serveURL, mix, *conc, 5*time.Second)
			n += st.n
			s.errors += st.errors
		}
		fmt.Printf("soak: serve answered %d requests in all (%d in %v alone); RSS %.1f MiB, peak %.1f MiB\n",
			n, n-s.n, time.Since(t0).Round(time.Second), serveProc.status("VmRSS"), serveProc.status("VmHWM"))
	}
	if s.errors+t.errors > 0 {
		for _, e := range append(s.samples, t.samples...) {
			fmt.Println("  error:", e)
		}
		return errors.New("requests failed")
	}
	return nil
}

// doneMark names the file -keep leaves once its dats and export are whole,
// holding the runKey they were made for.
const doneMark = "complete"

func runKey(scattered int, portal, cell string) string {
	return fmt.Sprintf("scattered=%d portal=%s cell=%s\n", scattered, portal, cell)
}

// workDir is a fresh temporary folder, or -keep's folder; reuse reports
// that the folder already holds what this run would make.
func workDir(keep, key string) (dir string, reuse bool, err error) {
	if keep == "" {
		dir, err = os.MkdirTemp("", "acambient-load-")
		return dir, false, err
	}
	if err := os.MkdirAll(keep, 0o755); err != nil {
		return "", false, err
	}
	b, err := os.ReadFile(filepath.Join(keep, doneMark))
	reuse = err == nil && string(b) == key
	if !reuse {
		os.Remove(filepath.Join(keep, doneMark))
	}
	return keep, reuse, nil
}

// sources are the demo world, or a pair of retail dats.
func sources(portal, cell string) (p, c source.Lister, name string, err error) {
	if portal == "" && cell == "" {
		w, err := demo.Build()
		if err != nil {
			return nil, nil, "", fmt.Errorf("demo world: %w", err)
		}
		return source.NewMemory(w.Portal), source.NewMemory(w.Cell), "demo world", nil
	}
	pd, err := datfile.OpenDat(portal)
	if err != nil {
		return nil, nil, "", err
	}
	cd, err := datfile.OpenDat(cell)
	if err != nil {
		return nil, nil, "", err
	}
	return pd, cd, portal + " + " + cell, nil
}

// writeScattered writes the synthetic cell dat of n entries and the demo
// world's portal as a dat into dir.
func writeScattered(dir string, n int) (portal, cell string, err error) {
	w, err := demo.Build()
	if err != nil {
		return "", "", fmt.Errorf("demo world: %w", err)
	}
	portal, cell = filepath.Join(dir, "client_portal.dat"), filepath.Join(dir, "client_cell_1.dat")
	f, err := os.Create(portal)
	if err != nil {
		return "", "", err
	}
	if err := datfile.WriteDat(f, datfile.Portal, w.Portal); err != nil {
		f.Close()
		return "", "", err
	}
	if err := f.Close(); err != nil {
		return "", "", err
	}
	if _, err := scatterdat.Write(cell, n); err != nil {
		return "", "", err
	}
	return portal, cell, nil
}

func closeSources(srcs ...source.Lister) {
	for _, s := range srcs {
		if c, ok := s.(io.Closer); ok {
			c.Close()
		}
	}
}

// buildServe builds this module's command into dir: the serve measured is
// the one users run.
func buildServe(dir string) (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m: %w", err)
	}
	bin := filepath.Join(dir, "acambient")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = strings.TrimSpace(string(out))
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build: %w", err)
	}
	return bin, nil
}

// child is a server process that printed "open URL" once listening.
type child struct {
	cmd    *exec.Cmd
	url    string
	stderr bytes.Buffer
}

func startChild(bin string, args ...string) (*child, error) {
	c := &child{cmd: exec.Command(bin, args...)}
	c.cmd.Stderr = &c.stderr
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "open "); ok {
			c.url = strings.TrimSuffix(u, "/")
			go io.Copy(io.Discard, out)
			return c, nil
		}
	}
	c.cmd.Process.Kill()
	c.cmd.Wait()
	return nil, fmt.Errorf("%s exited before listening: %s", bin, c.stderr.String())
}

func (c *child) stop() {
	c.cmd.Process.Signal(syscall.SIGTERM)
	c.cmd.Wait()
}

// status reads a size line (kB) of the child's /proc status as MiB; 0
// where there is none (not Linux).
func (c *child) status(key string) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(v), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}

// cpu is the child's user and system time so far (Linux; 0 elsewhere).
func (c *child) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The fields after the command (which may hold spaces) start at its ')'.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	var utime, stime int64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	return time.Duration(utime+stime) * time.Second / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every
// Linux Go supports.
const clockTicks = 100

// serveStatic is the static child: http.FileServer over dir until SIGTERM.
func serveStatic(dir string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("open http://%s/\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	lim := server.DefaultLimits()
	return server.Serve(ctx, server.NewHTTPServer(http.FileServer(http.Dir(dir)), lim, log.New(io.Discard, "", 0)), ln, lim.Shutdown)
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

func newMix(dir string, randomCell bool) (*mix, error) {
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
	if randomCell {
		if err := add("cell record", 1, "/cell/files/", "cell/files", func(uint32) bool { return true }); err != nil {
			return nil, err
		}
		return m, nil
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
