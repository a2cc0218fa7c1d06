package e2e

// <ac-ambience> (issue 31, docs/interfaces.md §6): two elements and one off
// the data on a plain page of one origin, the module and the records from
// another, in the three engines.

import (
	"fmt"
	"sync"

	"acambient/datfetch/source"
	"acambient/server"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// elementHost is the host page: its own CSS aimed at buttons and at every
// element (which must not reach into the element's shadow root), and the
// module from the other origin.
const elementHost = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A guide to Holtburg</title><link rel="icon" href="data:,">
<style>
  button { display: none !important; }
  * { font-size: 40px; text-transform: uppercase; letter-spacing: 9px; }
</style>
<script type="module" src="%[1]s/ac-ambience.js"></script>
</head><body>
<h1>Holtburg</h1>
<p>The river: <ac-ambience id="a" pos="%[2]s" label="The river below Holtburg"></ac-ambience></p>
<p>The meadow: <ac-ambience id="b" pos="%[3]s" captions volume="0.8"></ac-ambience></p>
<p>Far away: <ac-ambience id="c" pos="0.0N,0.0E" label="Somewhere else"></ac-ambience></p>
<script>
  window.__ev = [];
  for (const k of ["ac-play", "ac-stop", "ac-error"]) {
    document.addEventListener(k, (e) => __ev.push({ type: k, id: e.target.id, detail: e.detail }));
  }
</script>
</body></html>`

// elementState is what the test reads off the page.
type elementState struct {
	Events []struct {
		Type   string            `json:"type"`
		ID     string            `json:"id"`
		Detail map[string]string `json:"detail"`
	} `json:"events"`
	Pressed map[string]string `json:"pressed"`
	Text    map[string]string `json:"text"`
	Same    bool              `json:"same"`
	Cell    string            `json:"cell"`
	Running bool              `json:"running"`
	Font    string            `json:"font"`
	Case    string            `json:"case"`
	Shown   bool              `json:"shown"`
}

const elementRead = `(() => {
	const els = ["a", "b", "c"].map((id) => document.getElementById(id));
	const btn = (e) => e.shadowRoot.querySelector("button");
	const amb = els.map((e) => e.ambient).find((a) => a);
	const cs = getComputedStyle(btn(els[0]));
	return {
		events: window.__ev,
		pressed: Object.fromEntries(els.map((e) => [e.id, btn(e).getAttribute("aria-pressed")])),
		text: Object.fromEntries(els.map((e) => [e.id, btn(e).textContent])),
		same: !!els[0].ambient && els[0].ambient === els[1].ambient,
		cell: amb ? amb.state().player.objcellId : "",
		running: !!amb && amb.running,
		font: cs.fontSize, case: cs.textTransform, shown: cs.display !== "none" && btn(els[0]).getBoundingClientRect().width > 0,
	};
})()`

// TestElementAnyOrigin: on a page of another origin, the river's element
// plays from a click (its listener at the river, aria-pressed, ac-play);
// the meadow's, from Enter on its focused button, stops the river's (ac-stop)
// and moves the one shared engine's listener to the meadow; a click stops
// it; a position off the data says "no ambient data here" with an ac-error
// of code missing-landblock. The host's CSS does not reach the button, and
// nothing is logged as an error.
func TestElementAnyOrigin(t *testing.T) {
	forEngines(t, allEngines, func(t *testing.T, spec browserSpec) {
		data, served := countedServer(t)
		river, riverCell := landmark(t, "river")
		meadow, meadowCell := landmark(t, "meadow")
		host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, elementHost, data, river, meadow)
		}))
		t.Cleanup(host.Close)
		if host.URL == data {
			t.Fatal("one origin for both")
		}
		b := lfLaunch(t, spec)
		b.do("goto", "url", host.URL+"/")
		b.waitFor(`customElements.get("ac-ambience") && document.getElementById("c").shadowRoot`, 30*time.Second)
		var st elementState
		read := func() string { b.eval(&st, elementRead); return fmt.Sprintf("%+v", st) }
		read()
		if st.Font != "15px" || st.Case != "none" || !st.Shown {
			t.Errorf("the host's CSS reached the button: font-size %s, text-transform %s, shown %v", st.Font, st.Case, st.Shown)
		}
		if st.Text["a"] != "▶The river below Holtburg" || st.Pressed["a"] != "false" {
			t.Errorf("before: a reads %q, aria-pressed %s", st.Text["a"], st.Pressed["a"])
		}

		lfClickElement(b, "#a")
		until(t, 60*time.Second, read, func() bool {
			read()
			return st.Pressed["a"] == "true" && st.Cell == fmt.Sprintf("0x%08X", riverCell) && st.Running
		})
		if len(st.Events) != 1 || st.Events[0].Type != "ac-play" || st.Events[0].ID != "a" {
			t.Errorf("after a click on a: events %+v, want one ac-play from a", st.Events)
		}
		// The element's cost on a cold page: what the data server sent (bodies as
		// sent, compressed) until a first sound can be heard at the river.
		b.eval(nil, `document.getElementById("a").ambient.started()`)
		first := served.total()
		t.Logf("%s: before the first sound, the data server sent %d bytes in %d answers (%s)", spec.Engine, first.bytes, first.n, first.by)

		b.eval(nil, `document.getElementById("b").shadowRoot.querySelector("button").focus()`)
		b.do("key", "key", "Enter")
		until(t, 30*time.Second, read, func() bool {
			read()
			return st.Pressed["b"] == "true" && st.Cell == fmt.Sprintf("0x%08X", meadowCell)
		})
		if st.Pressed["a"] != "false" || !st.Same || !st.Running {
			t.Errorf("after Enter on b: a aria-pressed %s, one engine %v, running %v", st.Pressed["a"], st.Same, st.Running)
		}
		lfClickElement(b, "#b")
		until(t, 10*time.Second, read, func() bool { read(); return st.Pressed["b"] == "false" })

		lfClickElement(b, "#c")
		until(t, 30*time.Second, read, func() bool { read(); return len(st.Events) >= 5 })
		var seq []string
		for _, e := range st.Events {
			seq = append(seq, e.Type+" "+e.ID)
		}
		want := "ac-play a,ac-stop a,ac-play b,ac-stop b,ac-error c"
		if strings.Join(seq, ",") != want {
			t.Errorf("events %q, want %q", seq, want)
		}
		if e := st.Events[len(st.Events)-1]; e.Detail["code"] != "missing-landblock" || e.Detail["message"] == "" {
			t.Errorf("ac-error detail %v, want code missing-landblock and a message", e.Detail)
		}
		if st.Text["c"] != "▶no ambient data here" || st.Pressed["c"] != "false" {
			t.Errorf("off the data: c reads %q, aria-pressed %s", st.Text["c"], st.Pressed["c"])
		}
		// One engine for the page: one wasm, one module, whatever the elements.
		if n := served.count("/ambient.wasm"); n != 1 {
			t.Errorf("ambient.wasm asked %d times, want once (one engine per server)", n)
		}
		logs := b.logs()
		lfNoErrorsIn(t, logs)
		if t.Failed() {
			t.Logf("page log:\n%s", strings.Join(logs, "\n"))
		}
	})
}

// servedLog counts what a test server sent, by path.
type servedLog struct {
	mu    sync.Mutex
	paths []string
	bytes []int
}

type servedTotal struct {
	n, bytes int
	by       string // bytes by kind: the module files, the wasm, records
}

func (l *servedLog) count(path string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, p := range l.paths {
		if p == path {
			n++
		}
	}
	return n
}

func (l *servedLog) total() servedTotal {
	l.mu.Lock()
	defer l.mu.Unlock()
	var t servedTotal
	kinds := map[string]int{}
	for i, p := range l.paths {
		t.n++
		t.bytes += l.bytes[i]
		switch {
		case strings.HasSuffix(p, ".wasm"):
			kinds["wasm"] += l.bytes[i]
		case strings.HasSuffix(p, ".js"):
			kinds["js"] += l.bytes[i]
		default:
			kinds["records and hints"] += l.bytes[i]
		}
	}
	t.by = fmt.Sprintf("js %d, wasm %d, records and hints %d", kinds["js"], kinds["wasm"], kinds["records and hints"])
	return t
}

// countedServer is pageServer's (the page's files with a fresh wasm and the
// demo world) with what it sends counted.
func countedServer(t *testing.T) (string, *servedLog) {
	t.Helper()
	www, w := site(t)
	l := &servedLog{}
	h := server.New(server.Options{Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www, CORS: "*"})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &countingWriter{ResponseWriter: w}
		h.ServeHTTP(cw, r)
		l.mu.Lock()
		l.paths = append(l.paths, r.URL.Path)
		l.bytes = append(l.bytes, cw.n)
		l.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv.URL, l
}
