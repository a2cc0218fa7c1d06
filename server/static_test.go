package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// wasmish is incompressible-looking but repetitive enough for gzip to win.
var wasmish = append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("\x20\x00\x41\x01\x6a\x0b"), 4000)...)

func TestGeneratedIndex(t *testing.T) {
	for _, www := range []string{"", writeWWW(t, map[string]string{".gitkeep": ""})} {
		h, _ := newTestHandler(t, Options{WWW: www, Name: "demo <world>"})
		r := do(h, "GET", "/")
		page := body(t, r)
		if r.StatusCode != 200 || r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Fatalf("www %q: GET /: %d %s", www, r.StatusCode, r.Header.Get("Content-Type"))
		}
		for _, want := range []string{
			"Serving <b>demo &lt;world&gt;</b>", // the name is escaped
			"<td>Regions (0x13…)</td><td>1</td>",
			"<td>SoundTables (0x20…)</td><td>2</td>",
			"<td>Waves (0x0A…)</td><td>5</td>",
			"<td>other</td><td>1</td>", // the GfxObj
			"<td>Landblocks (0xXXYYFFFF)</td><td>2</td>",
			"<td>EnvCells (0xXXYY0100–FFFD)</td><td>2</td>",
			"<td>other</td><td>2</td>", // LandBlockInfo and the iteration record
			`<a href="files">all portal ids</a>`,
			`<a href="files/0x13000000">0x13000000</a>`,
			`<a href="cell/files/0xA9B4FFFF">0xA9B4FFFF</a> <a href="cell/files/0xA9B5FFFF">0xA9B5FFFF</a>`,
		} {
			if !strings.Contains(page, want) {
				t.Errorf("www %q: index lacks %q:\n%s", www, want, page)
			}
		}
		if r := do(h, "GET", "/index.html"); r.StatusCode != 200 {
			t.Errorf("GET /index.html: %d", r.StatusCode)
		}
		if r := do(h, "GET", "/.gitkeep"); r.StatusCode != 404 {
			t.Errorf("GET /.gitkeep: %d, want 404 (dot files are not served)", r.StatusCode)
		}
	}
}

func TestStaticFiles(t *testing.T) {
	www := writeWWW(t, map[string]string{
		"index.html":      "<!doctype html><title>page</title>" + strings.Repeat("<p>ambient</p>", 50),
		"ambient.js":      "export class AmbientAudio {}\n" + strings.Repeat("// filler\n", 50),
		"ambient.d.ts":    strings.Repeat("export declare class AmbientAudio {}\n", 5),
		"ambient.wasm":    string(wasmish),
		"style.css":       "body{margin:0}",
		"icon.png":        "\x89PNG\r\n\x1a\n",
		"docs/index.html": "<p>docs</p>",
		"docs/.secret":    "no",
	})
	h, _ := newTestHandler(t, Options{WWW: www})
	for _, tc := range []struct {
		target, ctype string
		gz            bool // gzip when accepted
	}{
		{"/", "text/html; charset=utf-8", true},
		{"/ambient.js", "text/javascript; charset=utf-8", true},
		{"/ambient.d.ts", "text/plain; charset=utf-8", true},
		{"/ambient.wasm", "application/wasm", true},
		{"/style.css", "text/css; charset=utf-8", false}, // too small to shrink: sent as is
		{"/icon.png", "image/png", false},
		{"/docs/", "text/html; charset=utf-8", false},
	} {
		name := strings.TrimPrefix(tc.target, "/")
		if name == "" || strings.HasSuffix(name, "/") {
			name += "index.html"
		}
		want, _ := os.ReadFile(filepath.Join(www, name))

		plain := do(h, "GET", tc.target)
		if got := body(t, plain); plain.StatusCode != 200 || got != string(want) || plain.Header.Get("Content-Encoding") != "" {
			t.Errorf("GET %s: %d, %d bytes, encoding %q", tc.target, plain.StatusCode, len(got), plain.Header.Get("Content-Encoding"))
		}
		if ct := plain.Header.Get("Content-Type"); ct != tc.ctype {
			t.Errorf("GET %s: Content-Type %q, want %q", tc.target, ct, tc.ctype)
		}
		if plain.Header.Get("Cache-Control") != "no-cache" || plain.Header.Get("Last-Modified") == "" {
			t.Errorf("GET %s: caching headers %v", tc.target, plain.Header)
		}

		zr := do(h, "GET", tc.target, "Accept-Encoding", "br;q=1.0, gzip;q=0.8")
		zb := []byte(body(t, zr))
		if !tc.gz {
			if zr.Header.Get("Content-Encoding") != "" {
				t.Errorf("GET %s: gzipped", tc.target)
			}
			continue
		}
		if zr.Header.Get("Content-Encoding") != "gzip" || zr.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("GET %s gzip: encoding %q, Vary %q", tc.target, zr.Header.Get("Content-Encoding"), zr.Header.Get("Vary"))
			continue
		}
		if zr.Header.Get("ETag") == plain.Header.Get("ETag") {
			t.Errorf("GET %s: gzip and identity share ETag %s", tc.target, zr.Header.Get("ETag"))
		}
		unz, err := gzip.NewReader(bytes.NewReader(zb))
		if err != nil {
			t.Fatalf("GET %s: %v", tc.target, err)
		}
		got, _ := io.ReadAll(unz)
		if !bytes.Equal(got, want) || len(zb) >= len(want) {
			t.Errorf("GET %s gzip: %d bytes → %d, want %d bytes, smaller", tc.target, len(zb), len(got), len(want))
		}
		// Revalidation of the gzipped form.
		if r := do(h, "GET", tc.target, "Accept-Encoding", "gzip", "If-None-Match", zr.Header.Get("ETag")); r.StatusCode != 304 {
			t.Errorf("GET %s If-None-Match gzip ETag: %d", tc.target, r.StatusCode)
		}
	}

	for target, status := range map[string]int{
		"/docs":         301, // a folder is addressed with its slash
		"/docs/.secret": 404,
		"/missing.js":   404,
		"/docs/x/y":     404,
	} {
		r := do(h, "GET", target)
		if r.StatusCode != status {
			t.Errorf("GET %s: %d, want %d", target, r.StatusCode, status)
		}
		if status == 301 && r.Header.Get("Location") != "/docs/" {
			t.Errorf("GET %s: Location %q", target, r.Header.Get("Location"))
		}
	}
}

func TestStaticFileChanges(t *testing.T) {
	www := writeWWW(t, map[string]string{"ambient.js": "let v = 1;" + strings.Repeat(" ", 200)})
	h, _ := newTestHandler(t, Options{WWW: www})
	first := body(t, do(h, "GET", "/ambient.js", "Accept-Encoding", "gzip"))
	// A rebuild: new bytes, new mtime. The cached gzip must not outlive it.
	p := filepath.Join(www, "ambient.js")
	if err := os.WriteFile(p, []byte("let v = 2;"+strings.Repeat(" ", 300)), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	os.Chtimes(p, later, later)
	r := do(h, "GET", "/ambient.js", "Accept-Encoding", "gzip")
	zr, err := gzip.NewReader(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(zr)
	if !strings.HasPrefix(string(got), "let v = 2;") || string(got) == first {
		t.Fatalf("after the rebuild served %q", trunc(string(got)))
	}
	// And a file appearing after start is served (index.html replaces the generated one).
	os.WriteFile(filepath.Join(www, "index.html"), []byte("<p>the page</p>"), 0o644)
	if got := body(t, do(h, "GET", "/")); got != "<p>the page</p>" {
		t.Fatalf("GET / after index.html appeared: %q", trunc(got))
	}
}

func TestAcceptsGzip(t *testing.T) {
	for ae, want := range map[string]bool{
		"":                      false,
		"gzip":                  true,
		"GZIP":                  true,
		"x-gzip":                true,
		"deflate, gzip;q=0.5":   true,
		"gzip;q=0":              false,
		"gzip; q=0.000":         false,
		"br":                    false,
		"*":                     true,
		"*;q=0":                 false,
		"gzip;q=0, *":           false, // gzip refused by name
		"identity, *;q=0.1":     true,
		"gzip;q=bogus":          false,
		"br;q=1.0, gzip;q=0.8 ": true,
	} {
		if got := acceptsGzip(ae); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", ae, got, want)
		}
	}
}
