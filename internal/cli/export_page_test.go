package cli

import (
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"acambient/internal/export"
)

// `export -out DIR -source URL -api acdatservice` writes the page alone: the
// www folder, no record route and no zone layer, with index.html naming URL
// and its api as the page's default source (www/page/source.js reads the
// meta). Without -api the routes are ours. (-build=false and a stand-in
// wasm: the page's own build and run are e2e/publish_test.go's.)
func TestExportPageCommand(t *testing.T) {
	www := fakeWWW(t)
	for _, c := range []struct {
		args        []string
		server, api string
	}{
		{[]string{"-source", "https://dats.treestats.net", "-api", "acdatservice"}, "https://dats.treestats.net", "acdatservice"},
		{[]string{"-source", "https://example.org/acdats/"}, "https://example.org/acdats", "ours"},
	} {
		out := t.TempDir()
		stdout, stderr, code := runCmd(t, append([]string{"export", "-build=false", "-www", www, "-out", out}, c.args...)...)
		if code != 0 || !strings.Contains(stdout, "no records, no zones") {
			t.Fatalf("export %v: exit %d\n%s%s", c.args, code, stdout, stderr)
		}
		var files []string
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(out, p)
				files = append(files, filepath.ToSlash(rel))
			}
			return err
		})
		for _, f := range files {
			if strings.HasPrefix(f, "files/") || strings.HasPrefix(f, "cell/") || strings.HasPrefix(f, "dats/") || strings.HasPrefix(f, "zones.") {
				t.Errorf("export %v wrote %s; want the page alone", c.args, f)
			}
		}
		pageFiles, err := export.PageFiles(www)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range pageFiles {
			if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(f))); err != nil {
				t.Errorf("export %v: %v", c.args, err)
			}
		}
		b, err := os.ReadFile(filepath.Join(out, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		server, api := pageSourceMeta(t, string(b))
		if server != c.server || api != c.api {
			t.Errorf("export %v: the page's default source is %q %q; want %q %q", c.args, server, api, c.server, c.api)
		}
	}
}

// Flags that make no sense with -source, a URL that is no base URL, and a
// page folder without the wasm or without the meta to fill are errors that
// say so, and write no page.
func TestExportPageCommandErrors(t *testing.T) {
	www := fakeWWW(t)
	noWasm := fakeWWW(t)
	os.Remove(filepath.Join(noWasm, "ambient.wasm"))
	noModule := fakeWWW(t)
	os.Remove(filepath.Join(noModule, "page", "panel.js"))
	noMeta := fakeWWW(t)
	os.WriteFile(filepath.Join(noMeta, "index.html"), []byte("<!doctype html><title>x</title>\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-www", www, "-source", "https://a.example", "-server", "https://b.example"}, "-server would have nothing to do"},
		{[]string{"-www", www, "-source", "https://a.example", "-dats", "/x"}, "-dats would have nothing to do"},
		{[]string{"-www", www, "-source", "https://a.example", "-zones"}, "-zones would have nothing to do"},
		{[]string{"-www", www, "-source", "ftp://a.example"}, `-source "ftp://a.example": want an http:// or https:// base URL`},
		{[]string{"-www", www, "-source", "https://a.example/?server=x"}, "want an http:// or https:// base URL"},
		{[]string{"-www", www, "-source", "https://a.example", "-api", "acdat"}, `-api "acdat": want ours or acdatservice`},
		{[]string{"-www", noWasm, "-source", "https://a.example"}, "the exported page lacks ambient.wasm"},
		{[]string{"-www", noModule, "-source", "https://a.example"}, "the exported page lacks page/panel.js, which "},
		{[]string{"-www", noMeta, "-source", "https://a.example"}, `want one <meta name="acambient-source" content=""> to name the page's source in, found 0`},
	} {
		out := filepath.Join(t.TempDir(), "site")
		_, stderr, code := runCmd(t, append([]string{"export", "-build=false", "-out", out}, c.args...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("export %v: exit %d, stderr %q; want an error saying %q", c.args, code, stderr, c.want)
		}
	}
}

// The repository's own page holds the meta export fills, once.
func TestPageHasSourceMeta(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(DefaultWWW(), "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), export.SourceMeta); n != 1 {
		t.Errorf("www/index.html holds %s %d times; want once", export.SourceMeta, n)
	}
}

var metaRE = regexp.MustCompile(`<meta name="acambient-source" content="([^"]*)">`)

// pageSourceMeta decodes the page's default source as the page does
// (URLSearchParams of the meta's content).
func pageSourceMeta(t *testing.T, page string) (server, api string) {
	t.Helper()
	m := metaRE.FindAllStringSubmatch(page, -1)
	if len(m) != 1 {
		t.Fatalf("%d acambient-source metas in the page; want 1", len(m))
	}
	q, err := url.ParseQuery(html.UnescapeString(m[0][1]))
	if err != nil {
		t.Fatal(err)
	}
	return q.Get("server"), q.Get("api")
}

// fakeWWW is a copy of the repository's www/ page files (export.PageFiles:
// what the page names, transitively) with stand-ins for the built wasm and
// its glue.
func fakeWWW(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := DefaultWWW()
	files, err := export.PageFiles(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(f)))
		if f == "ambient.wasm" || f == "wasm_exec.js" {
			b, err = []byte("stand-in "+f), nil
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
