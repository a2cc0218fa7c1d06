package e2e

// Walks (issue 31, docs/interfaces.md §3.2): amb.render's WAV against the
// native render's, and a link with a route replaying the walk.

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// walkEngines: amb.render and walk links need no audio output, so they run
// where the page runs with an init-free driver too.
var walkEngines = []string{"chromium", "firefox"}

// renderCamera is a camera step of the rendered path: an object with a
// heading in the page, "POS/H" in the -path file (docs/interfaces.md §1.1).
const (
	renderCameraJS  = `{ t: 5, camera: { objcellId: 0xA9B5002D, x: 120, y: 96, z: 22.8522, heading: 90 } }`
	renderCameraPOS = "0xA9B5002D/120,96,22.8522/90"
)

// TestWalkRenderIsNative: a walk across the demo world (river → meadow →
// forest's edge at 12 m/s, a camera turned east at 5 s) rendered in the page
// by amb.render has the sha256 of `go run . render -path FILE -seconds N
// -seed S -o -` over the same path; the render leaves the listener where it
// stood and reports its progress to the end.
func TestWalkRenderIsNative(t *testing.T) {
	forEngines(t, walkEngines, func(t *testing.T, spec browserSpec) {
		url := pageServer(t, nil)
		river, _ := landmark(t, "river")
		meadow, _ := landmark(t, "meadow")
		forest, _ := landmark(t, "forest")
		b := lfLaunch(t, spec)
		b.do("goto", "url", url+"/#"+river)
		b.waitFor(`window.ambient && window.ambient.state().loading.pending === 0 && window.ambient.state().where.objcellId === "0xA9B5002D"`, 60*time.Second)
		const seconds, seed = 40.0, 7
		var got struct {
			SHA  string `json:"sha"`
			Size int    `json:"size"`
			Path []struct {
				T      float64 `json:"t"`
				Player string  `json:"player"`
			} `json:"path"`
			Progress []float64 `json:"progress"`
			Before   string    `json:"before"`
			After    string    `json:"after"`
			Ms       float64   `json:"ms"`
			Memory   float64   `json:"memory"`
		}
		b.eval(&got, `(async () => {
			const { walkPath } = await import("./walk.js");
			const amb = window.ambient;
			const path = walkPath([`+lfJS(river)+`, `+lfJS(meadow)+`, `+lfJS(forest)+`], { speed: 12 });
			const progress = [];
			const before = JSON.stringify(amb.state().player);
			const t0 = performance.now();
			const blob = await amb.render({ path: [...path, `+renderCameraJS+`], seconds: `+fmt.Sprint(seconds)+`, seed: `+fmt.Sprint(seed)+`,
				onProgress: (p) => progress.push(p.done / p.total) });
			const ms = performance.now() - t0;
			const sum = new Uint8Array(await crypto.subtle.digest("SHA-256", await blob.arrayBuffer()));
			return { sha: [...sum].map((x) => x.toString(16).padStart(2, "0")).join(""), size: blob.size, path, progress,
				before, after: JSON.stringify(amb.state().player), ms, memory: amb.stats().wasmMemory };
		})()`)
		if len(got.Path) < 100 || got.Path[0].T != 0 {
			t.Fatalf("walkPath: %d steps, first at %v", len(got.Path), got.Path)
		}
		var lines strings.Builder
		for _, st := range got.Path {
			l, _ := json.Marshal(st)
			lines.Write(append(l, '\n'))
		}
		fmt.Fprintf(&lines, "{\"t\": 5, \"camera\": %q}\n", renderCameraPOS)
		file := filepath.Join(t.TempDir(), "walk.jsonl")
		if err := os.WriteFile(file, []byte(lines.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		native := nativeRender(t, "-path", file, "-seconds", fmt.Sprint(seconds), "-seed", fmt.Sprint(seed))
		want := fmt.Sprintf("%x", sha256.Sum256(native))
		if got.SHA != want || got.Size != len(native) {
			t.Errorf("amb.render: %d bytes, sha256 %s; render -path: %d bytes, sha256 %s", got.Size, got.SHA, len(native), want)
		}
		if n := len(got.Progress); n < 2 || got.Progress[n-1] != 1 {
			t.Errorf("progress %v: want several reports, the last 1", got.Progress)
		}
		if got.Before != got.After {
			t.Errorf("the render moved the listener: %s → %s", got.Before, got.After)
		}
		t.Logf("%s: %v s rendered in %.0f ms (%.1f× real time), wasm memory %.1f MiB, %d steps",
			spec.Engine, seconds, got.Ms, seconds*1000/got.Ms, got.Memory/(1<<20), len(got.Path))
	})
}

// nativeRender is `go run . render ARGS -o -` over the demo world, the
// records the test servers serve.
func nativeRender(t *testing.T, args ...string) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", append(append([]string{"run", ".", "render"}, args...), "-o", "-")...)
	cmd.Dir = filepath.Dir(filepath.Dir(file))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("render %v: %v\n%s", args, err, stderr.String())
	}
	return out
}
