// Package e2e drives the demo page in headless Chromium, Firefox and WebKit
// (node and browsers.mjs, docs/browser-testing.md) against `serve`'s handler and
// against `export`'s tree behind a plain static file server, and checks what
// a user would notice: silence before the click, the instances `gather`
// computes, real and different audio at two terrains, a silent cellar, no
// fetch on the critical path when crossing a landblock edge, an error event
// and continued sound when the dat server dies mid-walk, recovery, stop and
// start, and no console errors.
//
// Without a browser, node or npm the tests skip locally and fail when
// CI=true (engines_test.go). ACAMBIENT_E2E_DROPOUTS=1 adds two 60 s dropout
// measurements.
package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"acambient/core/demo"
	"acambient/datfetch/source"
	"acambient/internal/export"
	"acambient/internal/wasmbuild"
	"acambient/server"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
	demoW     *demo.World
)

// site builds the page once: www's files (page/ included) and a fresh ambient.wasm and
// wasm_exec.js, through the same build `serve` runs.
func site(t *testing.T) (string, *demo.World) {
	t.Helper()
	buildOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Dir(filepath.Dir(file))
		buildDir, buildErr = os.MkdirTemp("", "acambient-e2e-www-")
		if buildErr != nil {
			return
		}
		src := filepath.Join(root, "www")
		buildErr = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "ambient.wasm") || d.Name() == "wasm_exec.js" {
				return err
			}
			rel, err := filepath.Rel(src, p)
			if err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err == nil {
				err = os.MkdirAll(filepath.Dir(filepath.Join(buildDir, rel)), 0o755)
			}
			if err == nil {
				err = os.WriteFile(filepath.Join(buildDir, rel), b, 0o644)
			}
			return err
		})
		if buildErr != nil {
			return
		}
		buildErr = wasmbuild.WasmBuild{Module: root, WWW: buildDir}.Build(context.Background())
		if buildErr == nil {
			demoW, buildErr = demo.Build()
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildDir, demoW
}

// reqLog is the record requests a test server saw; down makes the record
// routes drop the connection, as a dead server does.
type reqLog struct {
	mu   sync.Mutex
	reqs []request
	down atomic.Bool
}

type request struct {
	At     int64  `json:"at"` // Unix ms
	Path   string `json:"path"`
	Status int    `json:"status"`
	Bytes  int    `json:"bytes"`
}

type countingWriter struct {
	http.ResponseWriter
	status, n int
}

func (w *countingWriter) WriteHeader(s int) { w.status = s; w.ResponseWriter.WriteHeader(s) }
func (w *countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n += n
	return n, err
}

func (l *reqLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/__e2e/") {
			switch r.URL.Path {
			case "/__e2e/down":
				l.down.Store(true)
			case "/__e2e/up":
				l.down.Store(false)
			}
			l.mu.Lock()
			out, _ := json.Marshal(map[string]any{"requests": l.reqs, "down": l.down.Load()})
			l.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Write(out)
			return
		}
		record := strings.Contains(r.URL.Path, "/files/")
		if record && l.down.Load() {
			panic(http.ErrAbortHandler) // the connection drops: a network error in the page
		}
		cw := &countingWriter{ResponseWriter: w, status: 200}
		h.ServeHTTP(cw, r)
		if record {
			l.mu.Lock()
			l.reqs = append(l.reqs, request{time.Now().UnixMilli(), r.URL.Path, cw.status, cw.n})
			l.mu.Unlock()
		}
	})
}

// result is drive.mjs's output.
type result struct {
	Engine struct {
		Engine  string `json:"engine"`
		Version string `json:"version"`
	} `json:"engine"`
	Console []struct{ Type, Text, URL string } `json:"console"`
	Error   string                             `json:"error"`
	Steps   struct {
		BeforeClick struct {
			pageLook
			Later pageLook `json:"later"` // after half a second of the engine's clock
		} `json:"beforeClick"`
		Start struct {
			ClickToSound  float64 `json:"clickToSound"`
			State         string  `json:"state"`
			Rate          int     `json:"rate"`
			OverlayHidden bool    `json:"overlayHidden"`
		} `json:"start"`
		FirstSound    json.RawMessage `json:"firstSound"`
		River, Desert spot            `json:"-"`
		RiverRaw      json.RawMessage `json:"river"`
		DesertRaw     json.RawMessage `json:"desert"`
		Cellar        struct {
			audio
			Sounds      int  `json:"sounds"`
			VoicesEnded bool `json:"voicesEnded"`
			Drained     bool `json:"drained"` // a second of exact zeros came
		} `json:"cellar"`
		Walk struct {
			T0        int64             `json:"t0"`
			CrossedAt int64             `json:"crossedAt"`
			WalkEnd   int64             `json:"walkEnd"`
			Requests  []request         `json:"requests"`
			Rebuilds  []json.RawMessage `json:"rebuilds"`
			HostPre   hostStats         `json:"hostPre"` // before moving near the edge
			Host0     hostStats         `json:"host0"`
			HostAt    hostStats         `json:"hostAtCrossing"`
			HostEnd   hostStats         `json:"hostEnd"`
		} `json:"walk"`
		Down struct {
			VoicesAtError int       `json:"voicesAtError"`
			Errors        []string  `json:"errors"`
			GotError      bool      `json:"gotError"`
			Audio         audio     `json:"audio"`
			State         liveState `json:"state"`
		} `json:"down"`
		Recovered struct {
			State liveState `json:"state"`
			Audio audio     `json:"audio"`
		} `json:"recovered"`
		Stopped struct {
			Audio     audio  `json:"audio"` // what reached the destination while stopped
			State     string `json:"state"`
			Running   bool   `json:"running"`
			Suspended bool   `json:"suspended"` // the page reported it
			ClockRan  bool   `json:"clockRan"`  // the engine's clock ran a second meanwhile
		} `json:"stopped"`
		Restarted struct {
			Answer struct { // what start() resolved with
				Running           bool `json:"running"`
				WaitingForGesture bool `json:"waitingForGesture"`
			} `json:"answer"`
			Running bool  `json:"running"` // the page then reported the audio running
			Heard   bool  `json:"heard"`
			Audio   audio `json:"audio"`
		} `json:"restarted"`
		Corners struct {
			Outside string `json:"outside"`
			Inside  string `json:"inside"`
			Unknown string `json:"unknown"`
		} `json:"corners"`
		Idle60 *audio `json:"idle60"`
		Jank60 *audio `json:"jank60"`
	} `json:"steps"`
}

// pageLook is the page before the click.
type pageLook struct {
	Audio    string  `json:"audio"`    // state().audio
	Ctx      bool    `json:"ctx"`      // an AudioContext was made
	CtxState string  `json:"ctxState"` // its state ("none": none)
	Frames   int     `json:"frames"`
	Overlay  bool    `json:"overlay"`
	Time     float64 `json:"time"`
}

type audio struct {
	State           string  `json:"state"`
	Frames          int     `json:"frames"`
	Secs            float64 `json:"secs"`
	RMS             float64 `json:"rms"`
	ZeroRuns        int     `json:"zeroRuns"`
	ZeroFrames      int     `json:"zeroFrames"`
	MaxZeroRun      int     `json:"maxZeroRun"`
	Discontinuities int     `json:"discontinuities"`
	MaxStep         float64 `json:"maxStep"`
}

type hostStats struct {
	Records int    `json:"records"`
	Bytes   int64  `json:"bytes"`
	Pending int    `json:"pending"`
	Cell    string `json:"cell"`
	N       int    `json:"n"`
}

type liveState struct {
	ObjCellID  string            `json:"objcellId"`
	Outdoorish bool              `json:"outdoorish"`
	Total      float64           `json:"total"`
	Cells      int               `json:"cells"`
	Sounds     []json.RawMessage `json:"sounds"`
	Held       int               `json:"held"` // heldInstances
	Voices     int               `json:"voices"`
	Loading    json.RawMessage   `json:"loading"`
}

type spot struct {
	audio
	Matched bool      `json:"matched"` // the instances became gather's
	Bands   []float64 `json:"bands"`
	First   []float64 `json:"first"`  // the first half of the listen
	Second  []float64 `json:"second"` // the second half
	State   liveState `json:"state"`
}

func (r *result) decode(out []byte) error {
	if err := json.Unmarshal(out, r); err != nil {
		return err
	}
	if r.Error != "" {
		return nil // a scenario that ended early: its error says why
	}
	if err := json.Unmarshal(r.Steps.RiverRaw, &r.Steps.River); err != nil {
		return fmt.Errorf("river: %w", err)
	}
	if err := json.Unmarshal(r.Steps.DesertRaw, &r.Steps.Desert); err != nil {
		return fmt.Errorf("desert: %w", err)
	}
	return nil
}

// The scenario listens at these landmarks (core/demo) and compares the
// page's instances with gather's there.
var scenarioSpots = []struct{ name, pos string }{
	{"river", "0xA9B5002D/120,96,22.85"},
	{"desert", "0xA5B00037/144,144,24.78"},
}

// TestPageAgainstServe: the scenario in every engine, against serve.
func TestPageAgainstServe(t *testing.T) {
	www, w := site(t)
	h := server.New(server.Options{
		Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www, CORS: "*",
	})
	forEngines(t, allEngines, func(t *testing.T, b browserSpec) { runScenario(t, b, h) })
}

// TestPageAgainstStaticExport: the scenario against export's tree on a
// plain static host, in Chromium (the tree, not the engine, is under test).
func TestPageAgainstStaticExport(t *testing.T) {
	www, w := site(t)
	out := t.TempDir()
	if _, err := export.Write(context.Background(), export.Options{
		Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www, Out: out,
		Hints: true, // as `export` writes them by default
	}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"index.html", "ambient.js", "app.js", "ambient.wasm", "wasm_exec.js", "files/0x13000000"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatalf("export tree lacks %s", f)
		}
	}
	// A plain static file host: Go's file server with the stock MIME table
	// (plus .wasm, which every real host knows).
	mime.AddExtensionType(".wasm", "application/wasm")
	forEngines(t, []string{"chromium"}, func(t *testing.T, b browserSpec) { runScenario(t, b, http.FileServer(http.Dir(out))) })
}

// heard is the RMS at the destination above which a sound is heard:
// −60 dBFS. The forest's bed alone, and a last voice of a spot, can be as
// quiet as −56 dBFS; the river and the desert are near −28.
const heard = 0.001

func runScenario(t *testing.T, b browserSpec, h http.Handler) {
	t.Helper()
	log := &reqLog{}
	srv := httptest.NewServer(log.wrap(h))
	defer srv.Close()

	want := map[string][]string{}
	expect := map[string][]json.RawMessage{}
	for _, s := range scenarioSpots {
		raw := gatherRaw(t, s.pos)
		expect[s.name], want[s.name] = raw, canon(t, raw)
	}
	expectFile := filepath.Join(t.TempDir(), "expect.json")
	if j, err := json.Marshal(expect); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(expectFile, j, 0o644); err != nil {
		t.Fatal(err)
	}

	mode := "full"
	if os.Getenv("ACAMBIENT_E2E_DROPOUTS") == "1" {
		mode = "dropouts"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := nodeDriver(ctx, b, "drive.mjs", srv.URL+"/", srv.URL+"/__e2e", expectFile, mode)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	killGroup(cmd)
	if err != nil {
		t.Fatalf("drive.mjs: %v\n%s\n%s", err, out, stderr.String())
	}
	if p := os.Getenv("ACAMBIENT_E2E_DUMP"); p != "" {
		os.WriteFile(p+"."+b.Engine, out, 0o644)
	}
	var r result
	if err := r.decode(out); err != nil {
		t.Fatalf("drive.mjs output: %v\n%s", err, out)
	}
	if r.Error != "" {
		t.Fatalf("scenario failed in %s %s: %s\nconsole: %+v", r.Engine.Engine, r.Engine.Version, r.Error, r.Console)
	}
	s := &r.Steps
	t.Logf("%s %s: click to first sound %.0f ms (context %s at %d Hz); before the first sound: %s",
		r.Engine.Engine, r.Engine.Version, s.Start.ClickToSound, s.Start.State, s.Start.Rate, s.FirstSound)

	// Silent before the click: no running audio context (the page makes one
	// at load, suspended, so that the click need not wait for it: issue
	// 18.2), nothing at the destination, while the engine's clock ran.
	for _, l := range []pageLook{s.BeforeClick.pageLook, s.BeforeClick.Later} {
		if l.Audio != "none" || l.Ctx && l.CtxState != "suspended" || l.Frames != 0 || !l.Overlay {
			t.Errorf("before the click: %+v; want no running audio context, no frames, the overlay shown", l)
		}
	}
	// The delay is measured and logged (a figure for the report), not
	// asserted: timing on a shared machine is not a test.
	if s.Start.State != "running" || !s.Start.OverlayHidden || s.Start.ClickToSound <= 0 {
		t.Errorf("start: %+v; want running audio after the click, overlay gone", s.Start)
	}

	// Two terrains: the page's instances are gather's — all it lists, in
	// gather's order, though after the river the engine still holds the
	// river's (heldInstances counts them) — real audio reaches the
	// destination, and the two spectra differ.
	for _, c := range []struct {
		name string
		got  spot
	}{{"river", s.River}, {"desert", s.Desert}} {
		got := canon(t, c.got.State.Sounds)
		if !c.got.Matched || !slices.Equal(got, want[c.name]) {
			t.Errorf("%s: the page's instances\n%s\nwant gather's\n%s", c.name, strings.Join(got, "\n"), strings.Join(want[c.name], "\n"))
		}
		if c.got.RMS < 0.003 || c.got.Secs < 2 {
			t.Errorf("%s: RMS %.5f over %.1f s at the destination; want real audio", c.name, c.got.RMS, c.got.Secs)
		}
		t.Logf("%s: %d instances, RMS %.4f (%.1f dBFS) over %.1f s, bands %v", c.name, len(got), c.got.RMS, 20*math.Log10(c.got.RMS), c.got.Secs, roundAll(c.got.Bands))
	}
	// The two halves of one listen differ by chance (which intermittent
	// sounds fired: one loud call in one half made them differ by 11 dB
	// once, against 3–4 dB usually); two terrains must differ by more than
	// that, and by 6 dB at least (typically ~20).
	if h := s.Desert.State.Held; h <= len(s.Desert.State.Sounds) || h < len(s.River.State.Sounds) {
		t.Errorf("at the desert after the river the engine holds %d instances for %d listed; want the river's %d kept too",
			h, len(s.Desert.State.Sounds), len(s.River.State.Sounds))
	}
	same := max(shapeDistance(s.River.First, s.River.Second), shapeDistance(s.Desert.First, s.Desert.Second))
	if d := shapeDistance(s.River.Bands, s.Desert.Bands); d < 6 || d <= same {
		t.Errorf("river and desert spectral shapes differ by %.2f dB RMS (halves of one spot: %.2f); want ≥ 6 and more than the halves'", d, same)
	} else {
		t.Logf("river vs desert: spectral shapes differ by %.2f dB RMS over 60 Hz–10 kHz (halves of one spot: %.2f)", d, same)
	}

	// The cellar sees no outside: no instances, its voices end, the output
	// drains, and then a second of exact silence.
	if c := s.Cellar; c.Sounds != 0 || !c.VoicesEnded || !c.Drained || c.RMS != 0 || c.Frames < 48000 {
		t.Errorf("cellar: %d live instances, voices ended %v, output drained %v, then RMS %g over %d frames; want none, true, true, exact silence over ≥ 48000",
			c.Sounds, c.VoicesEnded, c.Drained, c.RMS, c.Frames)
	}

	// Crossing the landblock edge: the host (which also counts what the
	// browser's HTTP cache answered) fetches nothing from the start of the
	// walk to its end 8 m past the edge, the next ring having been
	// prefetched (and the end is within 48 m of the edge behind, whose ring
	// is held), and the new block has its instances at the crossing. The
	// server sees no SoundTable or Wave asked for; landblocks it may (the
	// map's tiles, which the host does not count).
	w := s.Walk
	var portal []string
	var recs, bytes int
	for _, q := range w.Requests {
		if !strings.Contains(q.Path, "/cell/") {
			portal = append(portal, q.Path)
		}
		recs++
		bytes += q.Bytes
	}
	if len(portal) != 0 {
		t.Errorf("crossing the edge fetched %v", portal)
	}
	if w.HostAt.Records != w.Host0.Records || w.HostAt.Pending != 0 || w.HostAt.N == 0 || w.HostEnd.Records != w.Host0.Records {
		t.Errorf("at the crossing (%s) the host had fetched %d records since the walk began, %d pending, %d live instances; %d by the walk's end; want 0, 0, > 0, 0",
			w.HostAt.Cell, w.HostAt.Records-w.Host0.Records, w.HostAt.Pending, w.HostAt.N, w.HostEnd.Records-w.Host0.Records)
	}
	t.Logf("prefetch for one landblock crossing (moving within 48 m of the edge): %d records, %d bytes",
		w.Host0.Records-w.HostPre.Records, w.Host0.Bytes-w.HostPre.Bytes)
	t.Logf("walk across one landblock edge (crossed %d ms after the key went down): server saw %d requests (%d bytes); %d rebuilds",
		w.CrossedAt-w.T0, recs, bytes, len(w.Rebuilds))

	// The server dies mid-walk: an error event, the loaded sound goes on.
	if !s.Down.GotError || len(s.Down.Errors) == 0 {
		t.Errorf("no error event with the dat server down (player at %s)", s.Down.State.ObjCellID)
	}
	if s.Down.Audio.RMS < heard || s.Down.VoicesAtError == 0 {
		t.Errorf("with the server down: RMS %.5f, %d voices when the error came; want the loaded sound to go on", s.Down.Audio.RMS, s.Down.VoicesAtError)
	}
	if len(s.Recovered.State.Sounds) == 0 || s.Recovered.Audio.RMS < heard {
		t.Errorf("after the server came back: %d live instances, RMS %.5f; want the forest loaded and heard",
			len(s.Recovered.State.Sounds), s.Recovered.Audio.RMS)
	}
	t.Logf("the forest after the server came back: RMS %.4f (%.1f dBFS); after stop() and start(): %.4f",
		s.Recovered.Audio.RMS, 20*math.Log10(s.Recovered.Audio.RMS), s.Restarted.Audio.RMS)

	// stop(): the page says suspended, and while the engine's clock runs on
	// nothing reaches the destination; start() brings the sound back.
	if st := s.Stopped; !st.Suspended || st.State != "suspended" || st.Running || !st.ClockRan || st.Audio.Frames != 0 {
		t.Errorf("after stop(): reported suspended %v (audio %q, running %v), engine clock ran %v, %d frames reached the destination; want true, false, true, 0",
			st.Suspended, st.State, st.Running, st.ClockRan, st.Audio.Frames)
	}
	if !s.Restarted.Running || !s.Restarted.Heard || s.Restarted.Audio.RMS < heard {
		t.Errorf("start() after stop(): the page reports running %v, heard %v, RMS %.5f; want sound again", s.Restarted.Running, s.Restarted.Heard, s.Restarted.Audio.RMS)
	}
	// start() answers after racing resume() against 200 ms: on a busy
	// machine it can say it waits for a gesture while the audio resumes
	// (not the scenario's to assert; noted).
	if a := s.Restarted.Answer; !a.Running {
		t.Logf("start() after stop() answered %+v, and the audio then ran", a)
	}

	// At the corners, no landblock the world lacks was asked for: the
	// listing says which are there (a block past the demo's land is absent,
	// one of its own present, and one far off absent too, unasked).
	log.mu.Lock()
	for _, q := range log.reqs {
		if q.Status == http.StatusNotFound {
			t.Errorf("requested %s: 404", q.Path)
		}
	}
	log.mu.Unlock()
	if c := s.Corners; c.Outside != "absent" || c.Inside != "present" || c.Unknown != "absent" {
		t.Errorf("landblock presence at the corner %+v; want absent, present, absent (the listing names every block)", c)
	}

	// No console errors beyond the network's own lines for records dropped
	// while the server was down (consoleNoise); no 404 at all: the page
	// reads the landblock listing and asks for no landblock the world lacks.
	for _, m := range r.Console {
		if !consoleNoise(m.Type, m.Text, m.URL) {
			t.Errorf("console %s: %s (%s)", m.Type, m.Text, m.URL)
		}
	}
	if s.Idle60 != nil {
		t.Logf("dropouts, 60 s idle: %+v", *s.Idle60)
		t.Logf("dropouts, 60 s with the main thread busy 30 of every 50 ms: %+v", *s.Jank60)
	}
}

// consoleNoise reports the console lines that are the engine's or the
// network's, not the page's: Chromium's notice about oto/v2's output node
// and its lines for records dropped while the server was down (a 404 is
// not noise). Firefox logs no network failures to the console, and WebKit's
// log is the page's own (browsers.mjs).
func consoleNoise(typ, text, url string) bool {
	switch {
	case typ == "warning" && strings.Contains(text, "ScriptProcessorNode is deprecated"):
		return true // oto/v2's output node; Chromium's own notice
	case strings.HasPrefix(text, "Failed to load resource") && strings.Contains(url, "/files/") && !strings.Contains(text, "404"):
		return true
	}
	return false
}

var gathered sync.Map // POS → []json.RawMessage

// gatherRaw runs the gather command's code path (a fresh engine, one
// ChangePosition) through the binary, and returns its sounds.
func gatherRaw(t *testing.T, pos string) []json.RawMessage {
	t.Helper()
	if v, ok := gathered.Load(pos); ok {
		return v.([]json.RawMessage)
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	cmd := exec.Command("go", "run", ".", "gather", "-player", pos)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gather -player %s: %v", pos, err)
	}
	var g struct {
		Sounds []json.RawMessage `json:"sounds"`
	}
	if err := json.Unmarshal(out, &g); err != nil {
		t.Fatal(err)
	}
	gathered.Store(pos, g.Sounds)
	return g.Sounds
}

// canon re-encodes sounds so that key order and spacing cannot differ.
func canon(t *testing.T, raw []json.RawMessage) []string {
	t.Helper()
	out := []string{}
	for _, r := range raw {
		var v map[string]any
		if err := json.Unmarshal(r, &v); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	return out
}

// shapeDistance compares two spectra (dB per band, drive.mjs's 24 log bands
// from 60 Hz to 16 kHz) by shape: each is taken relative to its own mean over
// the bands below 10 kHz (the demo's waves hold little above 11 kHz), so a
// spot that is merely louder does not count; the result is the RMS of the
// difference, in dB.
func shapeDistance(a, b []float64) float64 {
	const top = 21 // bands 0..20 end below 10 kHz: 60·(16000/60)^(21/24) ≈ 7.9 kHz
	if len(a) < top || len(b) < top {
		return 0
	}
	var ma, mb float64
	for i := 0; i < top; i++ {
		ma += a[i]
		mb += b[i]
	}
	ma /= top
	mb /= top
	var ss float64
	for i := 0; i < top; i++ {
		d := (a[i] - ma) - (b[i] - mb)
		ss += d * d
	}
	return math.Sqrt(ss / top)
}

func roundAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Round(x*10) / 10
	}
	return out
}
