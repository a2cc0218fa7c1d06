package server

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"acambient/internal/modgraph"
)

// sha12 is the version the tests expect: SHA-256's first 12 hex digits,
// computed here rather than by the code under test.
func sha12(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:12]
}

// touch gives the file at p new content and a new time (a build, an edit).
func touch(t *testing.T, p, content string, at time.Time) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}

// A page file asked by its current version is immutable for a year; asked
// plainly, by a stale version or by nonsense, it is today's answer: the
// current bytes, no-cache, the same ETag. The wasm's .br sibling and gzip
// are sent as ever, versioned or not.
func TestVersionedPageFile(t *testing.T) {
	js := strings.Repeat("export const a = 1; // padding for gzip\n", 40)
	www := writeWWW(t, map[string]string{"a.js": js, "ambient.wasm": string(wasmish), "index.html": "<p>page</p>"})
	wasmBr := filepath.Join(www, "ambient.wasm.br")
	touch(t, wasmBr, "brotli bytes", time.Now().Add(time.Hour)) // newer than the wasm: sent to br clients
	h, _ := newTestHandler(t, Options{WWW: www})
	const immutable = "public, max-age=31536000, immutable"

	plain := do(h, "GET", "/a.js")
	etag := plain.Header.Get("ETag")
	if plain.StatusCode != 200 || plain.Header.Get("Cache-Control") != "no-cache" || etag == "" {
		t.Fatalf("GET /a.js: %d, Cache-Control %q, ETag %q; want 200 no-cache with an ETag", plain.StatusCode, plain.Header.Get("Cache-Control"), etag)
	}
	for _, c := range []struct {
		target, cache string
	}{
		{"/a.js?v=" + sha12(js), immutable},
		{"/a.js?x=1&v=" + sha12(js), immutable},
		{"/a.js?v=" + sha12("export const a = 0;"), "no-cache"}, // stale
		{"/a.js?v=" + sha12(js)[:8], "no-cache"},                // a prefix is not the version
		{"/a.js?v=", "no-cache"},
		{"/a.js?v=%3Cscript%3E", "no-cache"},
		{"/a.js?version=" + sha12(js), "no-cache"},
		{"/index.html?v=" + sha12("<p>page</p>"), "no-cache"}, // the page itself is always revalidated
	} {
		r := do(h, "GET", c.target)
		b := body(t, r)
		if r.StatusCode != 200 || r.Header.Get("Cache-Control") != c.cache {
			t.Errorf("GET %s: %d, Cache-Control %q; want 200, %q", c.target, r.StatusCode, r.Header.Get("Cache-Control"), c.cache)
		}
		if strings.HasPrefix(c.target, "/a.js") && (b != js || r.Header.Get("ETag") != etag) {
			t.Errorf("GET %s: %d bytes, ETag %q; want a.js's %d bytes, ETag %q", c.target, len(b), r.Header.Get("ETag"), len(js), etag)
		}
	}

	// Gzip and brotli, versioned: the same codings and Vary as plain.
	gz := do(h, "GET", "/a.js?v="+sha12(js), "Accept-Encoding", "gzip")
	if gz.Header.Get("Content-Encoding") != "gzip" || gz.Header.Get("Vary") != "Accept-Encoding" || gz.Header.Get("Cache-Control") != immutable {
		t.Errorf("gzip, versioned: %v", gz.Header)
	}
	for _, c := range []struct {
		target, cache string
	}{
		{"/ambient.wasm?v=" + sha12(string(wasmish)), immutable},
		{"/ambient.wasm?v=" + sha12("an older build"), "no-cache"},
		{"/ambient.wasm", "no-cache"},
	} {
		r := do(h, "GET", c.target, "Accept-Encoding", "gzip, br")
		if b := body(t, r); b != "brotli bytes" || r.Header.Get("Content-Encoding") != "br" || r.Header.Get("Vary") != "Accept-Encoding" ||
			r.Header.Get("Content-Type") != "application/wasm" || r.Header.Get("Cache-Control") != c.cache {
			t.Errorf("GET %s with br: %q, %v; want the .br sibling, Content-Encoding br, Vary, Cache-Control %q", c.target, b, r.Header, c.cache)
		}
	}
	if r := do(h, "GET", "/a.js?v="+sha12(js), "If-None-Match", etag); r.StatusCode != http.StatusNotModified {
		t.Errorf("versioned, If-None-Match: %d; want 304", r.StatusCode)
	}

	// An edit: the old version is stale at once, and never answered
	// immutable with the new bytes; the new one is.
	js2 := js + "export const b = 2;\n"
	touch(t, filepath.Join(www, "a.js"), js2, time.Now().Add(2*time.Hour))
	for _, c := range []struct{ v, cache string }{{sha12(js), "no-cache"}, {sha12(js2), immutable}} {
		r := do(h, "GET", "/a.js?v="+c.v)
		if b := body(t, r); b != js2 || r.Header.Get("Cache-Control") != c.cache {
			t.Errorf("after the edit, v=%s: Cache-Control %q, %d bytes; want %q and the new %d bytes", c.v, r.Header.Get("Cache-Control"), len(b), c.cache, len(js2))
		}
	}
}

// importMap returns the page's import map, failing unless there is
// exactly one, before every <link> and <script>, and valid JSON.
func importMap(t *testing.T, page string) map[string]string {
	t.Helper()
	re := regexp.MustCompile(`(?s)<script type="importmap">(.*?)</script>`)
	m := re.FindAllStringSubmatchIndex(page, -1)
	if len(m) != 1 {
		t.Fatalf("%d import maps in:\n%s", len(m), page)
	}
	if first := regexp.MustCompile(`<(link|script)\b`).FindStringIndex(page); first[0] != m[0][0] {
		t.Errorf("the import map is not the page's first <link> or <script>:\n%s", page)
	}
	var im struct {
		Imports map[string]string `json:"imports"`
	}
	if err := json.Unmarshal([]byte(page[m[0][2]:m[0][3]]), &im); err != nil {
		t.Fatalf("the import map: %v", err)
	}
	return im.Imports
}

// wantImports is the map a page of files should carry: every module as
// "./name" → "./name?v=" its version.
func wantImports(files map[string]string, modules ...string) map[string]string {
	want := map[string]string{}
	for _, m := range modules {
		want["./"+m] = "./" + m + "?v=" + sha12(files[m])
	}
	return want
}

// index.html as served names each file of the page by its version, maps
// each module the page reaches to its versioned URL, and is made again
// when a file changes, appears, or a module starts importing another.
func TestVersionedIndex(t *testing.T) {
	files := map[string]string{}
	for k, v := range pageWWW {
		files[k] = v
	}
	www := writeWWW(t, files)
	h, _ := newTestHandler(t, Options{WWW: www})
	get := func() string {
		t.Helper()
		r := do(h, "GET", "/")
		if r.StatusCode != 200 || r.Header.Get("Cache-Control") != "no-cache" || r.Header.Get("ETag") == "" {
			t.Fatalf("GET /: %d %v", r.StatusCode, r.Header)
		}
		return body(t, r)
	}
	page := get()
	for _, want := range []string{
		`<link rel="icon" href="data:,">`,
		`<link rel="stylesheet" href="app.css?v=` + sha12(files["app.css"]) + `">`,
		`<link rel="preload" href="ambient.wasm?v=` + sha12(files["ambient.wasm"]) + `" as="fetch" type="application/wasm" crossorigin>`,
		`<link rel="modulepreload" href="ambient.js?v=` + sha12(files["ambient.js"]) + `">`,
		`<link rel="modulepreload" href="page/dom.js?v=` + sha12(files["page/dom.js"]) + `">`,
		`<link rel="modulepreload" href="https://cdn.example/x.js">`,
		`<script type="module" src="app.js?v=` + sha12(files["app.js"]) + `"></script>`,
		`<a href="app.js">the source</a> <img src="app.css">`, // not a <link> or <script>: as written
	} {
		if !strings.Contains(page, want) {
			t.Errorf("served index lacks %s:\n%s", want, page)
		}
	}
	// The wasm too: ambient.js resolves its URL through the map for its worker.
	modules := []string{"ambient.js", "ambient.wasm", "app.js", "geo.js", "page/dom.js", "wasm_exec.js"}
	if got, want := importMap(t, page), wantImports(files, modules...); !maps.Equal(got, want) {
		t.Errorf("import map %v; want %v", got, want)
	}
	if again := get(); again != page {
		t.Errorf("a second GET / differs:\n%s", again)
	}

	// An edit of a module two imports deep, a new module it imports, a
	// file the page names appearing: each shows in the next answer.
	later := time.Now().Add(time.Hour)
	files["geo.js"] = `import "./page/new.js"; export const blockOf = 3;`
	files["page/new.js"] = "export {};"
	touch(t, filepath.Join(www, "page", "new.js"), files["page/new.js"], later)
	touch(t, filepath.Join(www, "geo.js"), files["geo.js"], later)
	page = get()
	modules = append(modules, "page/new.js")
	if got, want := importMap(t, page), wantImports(files, modules...); !maps.Equal(got, want) {
		t.Errorf("after the edit, import map %v; want %v", got, want)
	}
	os.Remove(filepath.Join(www, "app.css"))
	page = get()
	if !strings.Contains(page, `href="app.css">`) {
		t.Errorf("app.css removed: still versioned:\n%s", page)
	}
	touch(t, filepath.Join(www, "app.css"), "body{color:red}", later)
	if page = get(); !strings.Contains(page, `href="app.css?v=`+sha12("body{color:red}")+`"`) {
		t.Errorf("app.css back: not versioned by its new bytes:\n%s", page)
	}
	// Gzipped, it is the same page.
	r := do(h, "GET", "/", "Accept-Encoding", "gzip")
	if r.Header.Get("Content-Encoding") != "gzip" || gunzip(t, body(t, r)) != page {
		t.Errorf("gzipped index differs from the plain one")
	}

	// A page with an import map of its own is left as written.
	own := `<script type="importmap">{"imports":{}}</script><script type="module" src="app.js"></script>`
	touch(t, filepath.Join(www, "index.html"), own, later.Add(time.Hour))
	if page = get(); page != own {
		t.Errorf("a page with its own import map was rewritten:\n%s", page)
	}
}

func gunzip(t *testing.T, s string) string {
	t.Helper()
	zr, err := gzip.NewReader(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The demo page itself (www/): served, its import map covers every module
// app.js reaches (modgraph, as TestIndexPreloadsEveryModule lists them),
// and every <link> and <script> it names from its folder is versioned.
func TestVersionedDemoPage(t *testing.T) {
	src, err := filepath.Abs(filepath.Join("..", "www"))
	if err != nil {
		t.Fatal(err)
	}
	// The built files, which a checkout lacks until ./build.sh: stand-ins.
	www := t.TempDir()
	if err := os.CopyFS(www, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ambient.wasm", "wasm_exec.js"} {
		if _, err := os.Stat(filepath.Join(www, f)); err != nil {
			touch(t, filepath.Join(www, f), "built "+f, time.Now())
		}
	}
	h, _ := newTestHandler(t, Options{WWW: www})
	page := body(t, do(h, "GET", "/"))
	reached, err := modgraph.Walk(www, "app.js")
	if err != nil {
		t.Fatal(err)
	}
	imports := importMap(t, page)
	for _, f := range reached {
		if !strings.HasSuffix(f.Name, ".js") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(www, filepath.FromSlash(f.Name)))
		if err != nil {
			t.Fatal(err)
		}
		if want := "./" + f.Name + "?v=" + sha12(string(b)); imports["./"+f.Name] != want {
			t.Errorf("import map: %s → %q; want %q", f.Name, imports["./"+f.Name], want)
		}
	}
	if len(imports) < 14 {
		t.Errorf("import map of %d modules: %v", len(imports), imports)
	}
	tags := regexp.MustCompile(`<(?:link|script)\b[^>]*\b(?:src|href)="([^"]*)"`).FindAllStringSubmatch(page, -1)
	var plain []string
	for _, m := range tags {
		if _, ok := modgraph.Resolve("index.html", m[1]); ok && !strings.Contains(m[1], "?v=") {
			plain = append(plain, m[1])
		}
	}
	if len(plain) > 0 || len(tags) < 17 {
		t.Errorf("of %d references, not versioned: %v", len(tags), plain)
	}
	if !strings.Contains(page, `"./ambient.wasm": "./ambient.wasm?v=`) {
		t.Error("the import map does not name the wasm by its version")
	}
}
