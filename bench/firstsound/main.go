// Command firstsound measures what a new user waits for: the demo page at
// the river, opened in headless Chromium (Debian's, driven by node and
// playwright-core as e2e/ does) over loopback and over emulated links (50,
// 10 and 4 Mbit/s with 40 ms round trips, made by the bench's own server:
// wire.go), each cold (a fresh profile) and warm (the same profile, a
// second navigation). The harness clicks the overlay as soon as the page
// says "Click to listen", and prints, as medians and minima over the runs:
//
//   - ready: navigation → the page asks for the click;
//   - first sound: navigation → the first non-zero sample at the Web Audio
//     destination (the probe of docs/browser-testing.md §4);
//   - bytes on the wire before that sample (the server's log: the engine
//     runs in a Worker, whose requests a CDP session on the page does not
//     see; headers included);
//   - the longest main-thread task begun before that sample and the long
//     tasks' sum (PerformanceObserver "longtask": what an input during
//     the start waits behind);
//   - everything loaded: navigation → the last request of the ring's load;
//   - the records and the wasm fetched over the network (not from the cache);
//
// and, separately, click → first sample with every record already loaded,
// with the click's parts (start() called, the context made, resume, the
// context running, the first sample).
//
//	go run ./bench/firstsound [-runs 5] [-links local,50,10,4] [-rtt 40ms] [-json FILE]
//
// The figures are wall-clock times on whatever else the machine runs: the
// load average is printed with them. Nothing here is a test: it prints.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"acambient/core/demo"
	"acambient/datfetch/source"
	"acambient/internal/wasmbuild"
	"acambient/server"
)

// playwrightVersion is e2e's, installed in the same cache folder.
const playwrightVersion = "1.65.1"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "firstsound:", err)
		os.Exit(1)
	}
}

func run() error {
	runs := flag.Int("runs", 5, "runs per link (each one cold navigation then one warm)")
	links := flag.String("links", "local,50,10,4", "links to measure: local (no emulation) or a download rate in Mbit/s")
	rtt := flag.Duration("rtt", 40*time.Millisecond, "round trip of the emulated links")
	clicks := flag.Int("clicks", 5, "runs of click → first sample with every record loaded (0: none)")
	jsonOut := flag.String("json", "", "also write every run's raw measurements here")
	timeline := flag.Bool("timeline", false, "keep each navigation's requests (page clock) in -json's file")
	profile := flag.String("profile", "", "write each navigation's main-thread CPU profile (Chrome DevTools' .cpuprofile, wasm functions by name) into this folder, its clock offset in -json's file")
	module := flag.String("module", "", "build the page from this module folder (default: the current module), e.g. a checkout of main for the figures before a change")
	site := flag.String("site", "", "build the page into this folder and keep it; a later run reuses it while the wasm is up to date (default: a temporary folder)")
	flag.Parse()
	if *runs < 1 || *runs > 100 || *clicks < 0 || *clicks > 100 {
		return errors.New("want 1 ≤ -runs ≤ 100 and 0 ≤ -clicks ≤ 100")
	}
	var plan []link
	for _, s := range strings.Split(*links, ",") {
		l, err := parseLink(strings.TrimSpace(s), *rtt)
		if err != nil {
			return err
		}
		plan = append(plan, l)
	}

	chromium, err := findChromium()
	if err != nil {
		return err
	}
	pwDir, err := playwright()
	if err != nil {
		return err
	}
	dir := *site
	if dir == "" {
		tmp, err := os.MkdirTemp("", "acambient-firstsound-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	if err := buildSite(*module, dir); err != nil {
		return err
	}
	wasm, _ := os.Stat(filepath.Join(dir, "ambient.wasm"))
	br, _ := os.Stat(filepath.Join(dir, "ambient.wasm.br"))
	if wasm == nil || br == nil {
		return fmt.Errorf("%s lacks ambient.wasm or ambient.wasm.br", dir)
	}

	w, err := demo.Build()
	if err != nil {
		return fmt.Errorf("demo world: %w", err)
	}
	h := server.New(server.Options{Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell),
		Name: "demo world", WWW: dir, Log: log.New(io.Discard, "", 0)})
	// The page's server logs and shapes what it sends (wire.go); the
	// control server hands the log to the node half.
	var wl wireLog
	var sh shaper
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: wl.wrap(h, &sh)}
	go srv.Serve(shapedListener{Listener: ln, s: &sh})
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/"
	cln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	csrv := &http.Server{Handler: wl.control()}
	go csrv.Serve(cln)
	defer csrv.Close()
	control := "http://" + cln.Addr().String()

	fmt.Printf("ambient.wasm %d B raw, %d B brotli; Chromium %s; %d runs per link; load average %s\n",
		wasm.Size(), br.Size(), chromiumVersion(chromium), *runs, loadAvg())
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "run.mjs")
	if _, err := os.Stat(script); err != nil {
		return fmt.Errorf("the node half: %w (run from the module)", err)
	}

	var all []measurement
	for _, l := range plan {
		sh.set(l)
		ms, err := drive(script, pwDir, chromium, url, control, l, *runs, "visit", *timeline, *profile)
		if err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
		all = append(all, ms...)
	}
	if *clicks > 0 {
		sh.set(link{name: "local"})
		ms, err := drive(script, pwDir, chromium, url, control, link{name: "local"}, *clicks, "click", *timeline, *profile)
		if err != nil {
			return fmt.Errorf("click: %w", err)
		}
		all = append(all, ms...)
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(all, "", " ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			return err
		}
	}
	report(os.Stdout, plan, all)
	fmt.Printf("\nload average at the end %s\n", loadAvg())
	return nil
}

// link is one network condition: none (loopback) or an emulated rate.
type link struct {
	name    string
	mbit    float64 // 0: no emulation
	latency time.Duration
}

func parseLink(s string, rtt time.Duration) (link, error) {
	if s == "local" {
		return link{name: "localhost"}, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || v > 10000 {
		return link{}, fmt.Errorf("link %q: want local or a rate in Mbit/s", s)
	}
	return link{name: fmt.Sprintf("%g Mbit/s %v", v, rtt), mbit: v, latency: rtt}, nil
}

// measurement is one navigation, as run.mjs prints it. Times are ms on the
// page's clock (0 = navigation start); -1 = did not happen.
type measurement struct {
	Link       string  `json:"link"`
	Mode       string  `json:"mode"` // visit or click
	Run        int     `json:"run"`
	Warm       bool    `json:"warm"`
	Error      string  `json:"error,omitempty"`
	Ready      float64 `json:"ready"`
	Click      float64 `json:"click"`
	First      float64 `json:"first"`
	FirstLate  bool    `json:"firstLate"` // the tap attached after sound had started: First is an upper bound
	Loaded     float64 `json:"loaded"`
	BytesFirst int64   `json:"bytesFirst"`
	BytesAll   int64   `json:"bytesAll"`
	Requests   int     `json:"requests"`
	NetRecords int     `json:"netRecords"` // record answers (/files/0x…) that came over the network (200 or 304), not from the cache
	NetRecord2 int     `json:"netRecords200"`
	Wasm       struct {
		Status    int     `json:"status"`
		FromCache bool    `json:"fromCache"`
		Bytes     int64   `json:"bytes"`
		Ms        float64 `json:"ms"` // request to last byte
		At        float64 `json:"at"` // when it was asked for
	} `json:"wasm"`
	WasmRequests int                `json:"wasmRequests"`
	Timeline     json.RawMessage    `json:"timeline,omitempty"`
	Long         json.RawMessage    `json:"long,omitempty"`    // the main thread's long tasks [start, ms] (-timeline)
	Profile      json.RawMessage    `json:"profile,omitempty"` // -profile: {file, start: the profile's start on the page clock, ms}
	Clicks       map[string]float64 `json:"clicks"`            // the click's parts, ms after the click
	LongBefore   float64            `json:"longBefore"`        // the longest main-thread task begun before the first sample, ms (PerformanceObserver "longtask")
	LongSum      float64            `json:"longSumBefore"`     // those tasks' durations summed, ms
	LongCount    int                `json:"longCountBefore"`   // how many
	Marks        map[string]float64 `json:"marks,omitempty"`   // the start's steps (ambient.js, ambient.worker.js performance marks), page clock
	Move         map[string]float64 `json:"move,omitempty"`    // click runs: setPlayer → the new place heard (run.mjs heard(): desertMs, backMs, …Resolved)
	StartGaps    int                `json:"startGaps"`         // zero runs ≥ 64 frames in the 1.5 s after the first sample
	StartSteps   int                `json:"startSteps"`        // steps > 0.25 there
}

// drive runs the node half for one link and reads its JSON lines.
func drive(script, pwDir, chromium, url, control string, l link, runs int, mode string, timeline bool, profile string) ([]measurement, error) {
	cfg, _ := json.Marshal(map[string]any{
		"runs": runs, "mode": mode, "link": l.name, "timeline": timeline, "profile": profile, "control": control,
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(runs)*3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, pwDir, chromium, url+"#0xA9B5002D/120,96,22.85", string(cfg))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var ms []measurement
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m measurement
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, fmt.Errorf("run.mjs printed %q: %w", sc.Text(), err)
		}
		if m.Error != "" {
			fmt.Fprintf(os.Stderr, "%s run %d (warm %v): %s\n", m.Link, m.Run, m.Warm, m.Error)
		}
		ms = append(ms, m)
		fmt.Fprintf(os.Stderr, "%s %s run %d warm=%v: ready %.0f, first %.0f, %d B before, loaded %.0f; long tasks before: %d, longest %.0f, sum %.0f; load average %s\n",
			m.Link, m.Mode, m.Run, m.Warm, m.Ready, m.First, m.BytesFirst, m.Loaded, m.LongCount, m.LongBefore, m.LongSum, loadAvg())
	}
	if err := cmd.Wait(); err != nil {
		return ms, fmt.Errorf("node run.mjs: %w", err)
	}
	return ms, nil
}

// report prints the tables: per link, cold and warm, median (min).
func report(w io.Writer, plan []link, all []measurement) {
	fmt.Fprintf(w, "\n| link | visit | ready | first sound | bytes before it | longest main-thread task before it | long tasks' sum before it | everything loaded | bytes in all | records over the network | wasm |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, g := range visitGroups(plan, all, func(measurement) bool { return true }) {
		ms := g.ms
		late := ""
		for _, m := range ms {
			if m.FirstLate {
				late = " (≤)"
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s%s | %s | %s | %s | %s | %s | %s | %s |\n", g.link, g.visit,
			secs(ms, func(m measurement) float64 { return m.Ready }),
			secs(ms, func(m measurement) float64 { return m.First }), late,
			mib(ms, func(m measurement) float64 { return float64(m.BytesFirst) }),
			millis(ms, func(m measurement) float64 { return m.LongBefore }),
			millis(ms, func(m measurement) float64 { return m.LongSum }),
			secs(ms, func(m measurement) float64 { return m.Loaded }),
			mib(ms, func(m measurement) float64 { return float64(m.BytesAll) }),
			count(ms, func(m measurement) float64 { return float64(m.NetRecords) }),
			wasmCell(ms))
	}
	startSteps(w, plan, all)
	var cs []measurement
	for _, m := range all {
		if m.Mode == "click" && m.Error == "" {
			cs = append(cs, m)
		}
	}
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nclick → first sample with every record loaded (%d runs), ms after the click, median (min–max):\n\n", len(cs))
	gaps, steps := 0, 0
	for _, m := range cs {
		gaps += max(m.StartGaps, 0)
		steps += max(m.StartSteps, 0)
	}
	fmt.Fprintf(w, "In the 1.5 s after each first sample: %d gaps (64+ zero frames) and %d steps above 0.25, in all.\n\n", gaps, steps)
	fmt.Fprintf(w, "| step | ms |\n|---|---|\n")
	for _, k := range clickSteps {
		var v []float64
		for _, m := range cs {
			if x, ok := m.Clicks[k.key]; ok && x >= 0 {
				v = append(v, x)
			}
		}
		if len(v) == 0 {
			continue
		}
		slices.Sort(v)
		fmt.Fprintf(w, "| %s | %.0f (%.0f–%.0f) |\n", k.label, median(v), v[0], v[len(v)-1])
	}
	fmt.Fprintf(w, "\nsetPlayer → the new place heard (the destination leaving the last 1.5 s's range: its level by 3 dB or its zero-crossing rate by 25 %%, 23 ms windows), ms on the audio clock, median (min–max):\n\n| move | heard | the promise answered |\n|---|---|---|\n")
	for _, mv := range []struct{ key, label string }{
		{"desert", "river → desert (its records fetched then)"},
		{"back", "desert → river (records in memory)"},
	} {
		var h, r []float64
		for _, m := range cs {
			if x, ok := m.Move[mv.key+"Ms"]; ok && x >= 0 {
				h = append(h, x)
			}
			if x, ok := m.Move[mv.key+"Resolved"]; ok && x >= 0 {
				r = append(r, x)
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", mv.label, spread(h), spread(r))
	}
	// Stamps a build under study leaves in probe.t as "x:NAME".
	extra := map[string][]float64{}
	for _, m := range cs {
		for k, x := range m.Clicks {
			if strings.HasPrefix(k, "x:") {
				extra[k] = append(extra[k], x)
			}
		}
	}
	var keys []string
	for k := range extra {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return int(median(sorted(extra[a])) - median(sorted(extra[b]))) })
	for _, k := range keys {
		v := sorted(extra[k])
		fmt.Fprintf(w, "| %s | %.0f (%.0f–%.0f) |\n", k, median(v), v[0], v[len(v)-1])
	}
}

func sorted(v []float64) []float64 { slices.Sort(v); return v }

var clickSteps = []struct{ key, label string }{
	{"clickEvent", "click event dispatched"},
	{"start", "the page calls start()"},
	{"ctx", "AudioContext made"},
	{"resume", "resume() called (first after the click)"},
	{"running", "context running"},
	{"first", "first non-zero sample at the destination"},
}

func secs(ms []measurement, f func(measurement) float64) string {
	v := values(ms, f)
	if len(v) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f s (%.2f)", median(v)/1000, v[0]/1000)
}

// spread is v's median (min–max), or — when empty.
func spread(v []float64) string {
	if len(v) == 0 {
		return "—"
	}
	slices.Sort(v)
	return fmt.Sprintf("%.0f (%.0f–%.0f)", median(v), v[0], v[len(v)-1])
}

// millis is a median (min–max) in ms.
func millis(ms []measurement, f func(measurement) float64) string {
	v := values(ms, f)
	if len(v) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f ms (%.0f–%.0f)", median(v), v[0], v[len(v)-1])
}

func mib(ms []measurement, f func(measurement) float64) string {
	v := values(ms, f)
	if len(v) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f MiB (%.2f)", median(v)/(1<<20), v[0]/(1<<20))
}

func count(ms []measurement, f func(measurement) float64) string {
	v := values(ms, f)
	if len(v) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f (%.0f–%.0f)", median(v), v[0], v[len(v)-1])
}

// wasmCell is how the wasm came: its status, whether from the cache, and
// its bytes and time over the wire.
func wasmCell(ms []measurement) string {
	var b, t []float64
	statuses := map[string]int{}
	for _, m := range ms {
		s := strconv.Itoa(m.Wasm.Status)
		if m.Wasm.FromCache {
			s = "cache"
		}
		statuses[s]++
		b = append(b, float64(m.Wasm.Bytes))
		t = append(t, m.Wasm.Ms)
	}
	slices.Sort(b)
	slices.Sort(t)
	var keys []string
	for k, n := range statuses {
		keys = append(keys, fmt.Sprintf("%s×%d", k, n))
	}
	slices.Sort(keys)
	return fmt.Sprintf("%s, %.0f kB in %.2f s", strings.Join(keys, " "), median(b)/1000, median(t)/1000)
}

// values are f of each measurement that has it (≥ 0), sorted.
func values(ms []measurement, f func(measurement) float64) []float64 {
	var v []float64
	for _, m := range ms {
		if x := f(m); x >= 0 {
			v = append(v, x)
		}
	}
	slices.Sort(v)
	return v
}

func median(v []float64) float64 {
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// buildSite makes the page in dir: www's files, ambient.wasm and
// wasm_exec.js through serve's own build (when stale), and the brotli
// sibling serve precompresses.
func buildSite(root, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if root == "" {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
		if err != nil {
			return fmt.Errorf("go list -m: %w", err)
		}
		root = strings.TrimSpace(string(out))
	}
	// www's files, its folders (the page's modules) included.
	src := filepath.Join(root, "www")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		n := d.Name()
		if rel != "." && strings.HasPrefix(n, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		if rel == n && (strings.HasPrefix(n, "ambient.wasm") || n == "wasm_exec.js") {
			return nil // built below
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		return err
	}
	b := wasmbuild.WasmBuild{Module: root, WWW: dir}
	t0 := time.Now()
	if err := b.Ensure(context.Background(), func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }); err != nil {
		return err
	}
	if err := b.Precompress(func(string, ...any) {}); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "built and precompressed the wasm in %v\n", time.Since(t0).Round(time.Millisecond))
	return nil
}

func findChromium() (string, error) {
	for _, p := range []string{"/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium (apt-get install chromium)")
}

func chromiumVersion(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(out))
	if len(f) < 2 {
		return "?"
	}
	return f[1]
}

// playwright installs playwright-core where e2e keeps it.
func playwright() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "acambient-e2e", "playwright-core-"+playwrightVersion)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core", "package.json")); err == nil {
		return dir, nil
	}
	out, err := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", dir,
		"playwright-core@"+playwrightVersion).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("npm install playwright-core: %v\n%s", err, out)
	}
	return dir, nil
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// startMarks are the start's steps the page and its worker mark, in order
// (ambient.js load, ambient.worker.js mark).
var startMarks = []struct{ key, label string }{
	{"load", "load() called"},
	{"worker", "the worker runs"},
	{"glue", "wasm_exec.js imported"},
	{"compiled", "ambient.wasm compiled"},
	{"go", "Go's main handed its API"},
	{"opened", "open() done (the region)"},
	{"setPlayer", "the page's first setPlayer()"},
	{"moved", "the engine has the position (Go's setPlayer)"},
	{"context", "the audio context made ahead of the click"},
	{"worklet", "the worklet's port handed to the worker"},
	{"started", "started(): a first sound can be heard"},
	{"sound", "the first sound mixed (posted to the worklet, held there until the click)"},
	{"start", "start() called (the click)"},
	{"fed", "the worker feeds the worklet (after the click: what it held plays first)"},
}

// visitGroup is one link's cold or warm visits.
type visitGroup struct {
	link, visit string
	ms          []measurement
}

// visitGroups gathers the visits that ran without error and that keep
// takes, by link (in plan's order) and cold before warm, leaving out a
// group with none.
func visitGroups(plan []link, all []measurement, keep func(measurement) bool) []visitGroup {
	var gs []visitGroup
	for _, l := range plan {
		for _, warm := range []bool{false, true} {
			g := visitGroup{link: l.name, visit: "cold"}
			if warm {
				g.visit = "warm"
			}
			for _, m := range all {
				if m.Mode == "visit" && m.Link == l.name && m.Warm == warm && m.Error == "" && keep(m) {
					g.ms = append(g.ms, m)
				}
			}
			if len(g.ms) > 0 {
				gs = append(gs, g)
			}
		}
	}
	return gs
}

// startSteps prints, per link and visit, the median page-clock time of each
// step of the start, and the first sample's.
func startSteps(w io.Writer, plan []link, all []measurement) {
	fmt.Fprintf(w, "\nthe start's steps, s on the page clock, median (min):\n\n| step |")
	cols := visitGroups(plan, all, func(m measurement) bool { return len(m.Marks) > 0 })
	for _, c := range cols {
		fmt.Fprintf(w, " %s %s |", c.link, c.visit)
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|", len(cols)))
	row := func(label string, f func(measurement) float64) {
		fmt.Fprintf(w, "| %s |", label)
		for _, c := range cols {
			fmt.Fprintf(w, " %s |", secs(c.ms, f))
		}
		fmt.Fprintln(w)
	}
	for _, k := range startMarks {
		row(k.label, func(m measurement) float64 {
			if v, ok := m.Marks[k.key]; ok {
				return v
			}
			return -1
		})
	}
	row("first sample at the destination", func(m measurement) float64 { return m.First })
	// The harness's click goes out a CDP round trip after the page said
	// "Click to listen" (20–200 ms on a busy machine): the figure
	// is a click the instant started() resolves.
	row("the same, less the harness's delay from ready to its click", func(m measurement) float64 {
		if m.Click <= 0 || m.Ready <= 0 {
			return -1
		}
		return m.First - (m.Click - m.Ready)
	})
}
