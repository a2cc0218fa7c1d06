package soak

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"acambient/core/demo"
	"acambient/datfetch/source"
	"acambient/internal/export"
	"acambient/internal/wasmbuild"
	"acambient/server"
)

//go:embed soak.mjs
var script []byte

// Plan is the session soak.mjs walks through (its times in seconds).
type Plan struct {
	Seconds     float64  `json:"seconds"`     // the soak; 0 runs only the faults
	JumpEvery   float64  `json:"jumpEvery"`   // a landmark jump
	SwitchEvery float64  `json:"switchEvery"` // a switch of source (0: none)
	SampleEvery float64  `json:"sampleEvery"` // a sample of what the page holds
	VolumeEvery float64  `json:"volumeEvery"` // a move of the volume slider (0: none)
	EnableEvery float64  `json:"enableEvery"` // ambient sounds off for 3 s (0: none)
	Landmarks   []string `json:"landmarks,omitempty"`
	Start       string   `json:"start,omitempty"`      // the first landmark (river)
	Faults      []string `json:"faults,omitempty"`     // offline, 503, stall, trickle
	FaultStart  string   `json:"faultStart,omitempty"` // where each fault's walk starts (holtburg)
	FaultJump   string   `json:"faultJump,omitempty"`  // where it jumps a second into the fault (coast)
	HealTimeout float64  `json:"healTimeout,omitempty"`
	Seed        uint32   `json:"seed"`
	// BrowserCache keeps Chromium's HTTP cache on; off (the default) the
	// servers' logs count every record the page's own caches miss.
	BrowserCache bool `json:"-"`
}

// Options configure Run.
type Options struct {
	WWW        string // the built page: www's files, ambient.wasm, wasm_exec.js
	World      *demo.World
	Chromium   string
	Playwright string // the folder whose node_modules holds playwright-core
	Plan       Plan
	// Line, if set, receives each line the script prints, as it comes.
	Line func(Line)
	// Stderr receives the script's stderr (nil: discarded).
	Stderr io.Writer
}

// Line is one line of soak.mjs's output: Kind says which fields it has;
// Raw is the whole line.
type Line struct {
	Kind string  `json:"kind"`
	T    float64 `json:"t"`
	Raw  json.RawMessage
}

// Result is everything the script printed, and the servers' logs.
type Result struct {
	Lines    []Line
	Requests []Request // both servers', in order
	Export   string    // the export's origin
	Page     string    // the page's origin
}

// Servers are the demo world served twice: as `serve` serves it, on the
// page's origin (with the control route soak.mjs drives, /__soak/), and as
// a static export on a second origin; both behind the request log and the
// fault switch.
type Servers struct {
	Page, Export string // origins
	log          *requestLog
	close        func()
}

// Requests returns the record requests both servers have seen, in order.
func (s *Servers) Requests() []Request { return s.log.since(0) }

// Close stops the servers and removes the export.
func (s *Servers) Close() { s.close() }

// Serve starts the servers of the demo world w, the page from www.
func Serve(ctx context.Context, www string, w *demo.World) (*Servers, error) {
	exportDir, err := os.MkdirTemp("", "acambient-soak-export-")
	if err != nil {
		return nil, err
	}
	if _, err := export.Write(ctx, export.Options{
		Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", Out: exportDir,
		Hints: true, // as `export` writes them by default: the page asks the export for them
	}); err != nil {
		os.RemoveAll(exportDir)
		return nil, fmt.Errorf("export: %w", err)
	}
	mime.AddExtensionType(".wasm", "application/wasm")
	log := &requestLog{}
	a := &origin{name: "a", log: log, h: server.New(server.Options{
		Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www, CORS: "*",
	})}
	b := &origin{name: "b", log: log, h: withCORS(http.FileServer(http.Dir(exportDir)))}
	g := &gatherer{w: w, memo: map[string][]string{}}
	mux := http.NewServeMux()
	mux.Handle("/__soak/", control(log, g, map[string]*origin{"a": a, "b": b}))
	mux.Handle("/", a)
	pageSrv := httptest.NewServer(mux)
	exportSrv := httptest.NewServer(b)
	return &Servers{Page: pageSrv.URL, Export: exportSrv.URL, log: log, close: func() {
		pageSrv.Close()
		exportSrv.Close()
		os.RemoveAll(exportDir)
	}}, nil
}

// Run serves the demo world (Serve), runs soak.mjs in Chromium through the
// plan, and returns what it measured.
func Run(ctx context.Context, opt Options) (*Result, error) {
	srv, err := Serve(ctx, opt.WWW, opt.World)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	plan := struct {
		Plan
		Page          string `json:"page"`
		Export        string `json:"export"`
		Control       string `json:"control"`
		CacheDisabled bool   `json:"cacheDisabled"`
	}{opt.Plan, srv.Page, srv.Export, srv.Page + "/__soak", !opt.Plan.BrowserCache}
	planJSON, _ := json.Marshal(plan)
	file, err := os.CreateTemp("", "acambient-soak-*.mjs")
	if err != nil {
		return nil, err
	}
	defer os.Remove(file.Name())
	if _, err := file.Write(script); err != nil {
		return nil, err
	}
	file.Close()

	cmd := exec.CommandContext(ctx, "node", file.Name(), opt.Playwright, opt.Chromium, string(planJSON))
	cmd.Stderr = opt.Stderr
	if cmd.Stderr == nil {
		cmd.Stderr = io.Discard
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	res := &Result{Page: srv.Page, Export: srv.Export}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l Line
		raw := bytes.Clone(sc.Bytes())
		if err := json.Unmarshal(raw, &l); err != nil {
			continue // not ours (a stray print)
		}
		l.Raw = raw
		res.Lines = append(res.Lines, l)
		if opt.Line != nil {
			opt.Line(l)
		}
	}
	werr := cmd.Wait()
	res.Requests = srv.Requests()
	if werr != nil {
		return res, fmt.Errorf("soak.mjs: %w", werr)
	}
	return res, nil
}

// control is the route soak.mjs drives the servers by.
//
//	GET  counts                  record requests so far, per server and in all
//	GET  log?since=N             the requests from the Nth on
//	POST fault {server, mode, ms} a fault for ms (0: until the next)
//	POST gather {pos, sounds}    the page's instances against gather's at pos
func control(log *requestLog, g *gatherer, origins map[string]*origin) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		var out any
		var err error
		switch strings.TrimPrefix(r.URL.Path, "/__soak/") {
		case "counts":
			n := map[string]int{}
			all := log.since(0)
			for _, q := range all {
				n[q.Server]++
			}
			out = map[string]any{"total": len(all), "by": n}
		case "log":
			since, _ := strconv.Atoi(r.URL.Query().Get("since"))
			out = log.since(since)
		case "fault":
			var f struct {
				Server, Mode string
				Ms           int64
			}
			if err = json.NewDecoder(r.Body).Decode(&f); err == nil {
				o := origins[f.Server]
				if o == nil {
					err = fmt.Errorf("no server %q", f.Server)
					break
				}
				o.setFault(f.Mode, time.Duration(f.Ms)*time.Millisecond)
				out = map[string]string{"server": f.Server, "mode": f.Mode}
			}
		case "gather":
			var q struct {
				Pos    string
				Sounds []json.RawMessage
			}
			if err = json.NewDecoder(r.Body).Decode(&q); err == nil {
				out, err = g.check(q.Pos, q.Sounds)
			}
		default:
			err = errors.New("no such control")
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode(out)
	})
}

// Site builds the page into a temporary folder (www's files with a fresh
// ambient.wasm and wasm_exec.js, as `serve` builds it) from the module at
// root; the caller removes it.
func Site(ctx context.Context, root string) (string, error) {
	dir, err := os.MkdirTemp("", "acambient-soak-www-")
	if err != nil {
		return "", err
	}
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "www"))); err != nil {
		return "", err
	}
	return dir, wasmbuild.WasmBuild{Module: root, WWW: dir}.Build(ctx)
}
