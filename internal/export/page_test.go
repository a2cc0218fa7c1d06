package export

import (
	"context"
	"errors"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"acambient/internal/testkit/servertest"
	"acambient/server"
)

// untouched is a record source that fails the test if it is read: the
// page alone holds no records.
type untouched struct {
	t *testing.T
}

func (u untouched) Get(context.Context, uint32) ([]byte, error) {
	u.t.Error("the page alone read a record")
	return nil, errors.New("not here")
}

func (u untouched) IDs(context.Context) ([]uint32, error) {
	u.t.Error("the page alone listed records")
	return nil, errors.New("not here")
}

// TestExportPage: with a Source, Write writes the www folder alone (no
// record, no zone layer, the record sources never read), and index.html's
// meta names the source as the page's URL query would, escaped twice over
// (form-encoded, then for the attribute): a URL with & and " in it comes
// back whole.
func TestExportPage(t *testing.T) {
	page := map[string]string{
		"index.html": "<!doctype html>\n<head>\n" + SourceMeta + "\n<link rel=\"stylesheet\" href=\"app.css\">\n<title>t</title>\n</head>\n<script type=\"module\" src=\"app.js\"></script>\n",
		"app.js":     `import "./page/source.js"; import "./ambient.js";`, "app.css": "", "page/source.js": "",
		"ambient.js": `const u = new URL("./ambient.wasm", import.meta.url); await import("./wasm_exec.js");`, "ambient.wasm": "wasm", "wasm_exec.js": "",
	}
	www := servertest.WriteWWW(t, page)
	h := newTestHandler(t, server.Options{WWW: www})
	served := servertest.Body(t, servertest.Do(h, "GET", "/index.html"))
	for _, src := range []PageSource{
		{Server: "https://dats.treestats.net", API: "acdatservice"},
		{Server: `https://h.example/a&b"c d`, API: "ours"},
	} {
		out := filepath.Join(t.TempDir(), "site")
		res, err := Write(context.Background(), Options{
			Portal: untouched{t}, Cell: untouched{t}, WWW: www, Out: out, Zones: true, Source: src,
		})
		if err != nil {
			t.Fatalf("%+v: %v", src, err)
		}
		var files []string
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(out, p)
				files = append(files, filepath.ToSlash(rel))
			}
			return err
		})
		want := slices.Sorted(func(yield func(string) bool) {
			for f := range page {
				if !yield(f) {
					return
				}
			}
		})
		if !slices.Equal(files, want) || res.WWWFiles != len(page) || res.Regions != 0 || res.ZoneSets != 0 {
			t.Errorf("%+v: wrote %v (%+v); want the page's files alone, %v", src, files, *res, want)
		}
		b, _ := os.ReadFile(filepath.Join(out, "index.html"))
		m := regexp.MustCompile(`<meta name="acambient-source" content="([^"]*)">`).FindAllStringSubmatch(string(b), -1)
		if len(m) != 1 {
			t.Fatalf("%+v: index.html holds %d source metas:\n%s", src, len(m), b)
		}
		q, err := url.ParseQuery(html.UnescapeString(m[0][1]))
		if err != nil || q.Get("server") != src.Server || q.Get("api") != src.API {
			t.Errorf("%+v: the meta reads %q (%v)", src, m[0][1], err)
		}
		// Beyond its meta, index.html is what serve sends: the page's
		// files named by their versions (pagever.go).
		if got := strings.Replace(string(b), m[0][0], SourceMeta, 1); got != served || !strings.Contains(got, `src="app.js?v=`) {
			t.Errorf("%+v: index.html changed beyond its meta and its versions:\n%s\nserve sends:\n%s", src, b, served)
		}
	}

	// No page folder, no index.html, or no wasm: an error naming it.
	noWasm := servertest.WriteWWW(t, map[string]string{"index.html": page["index.html"], "app.js": page["app.js"], "app.css": "",
		"page/source.js": "", "ambient.js": page["ambient.js"], "wasm_exec.js": ""})
	noIndex := servertest.WriteWWW(t, map[string]string{"app.js": ""})
	for _, c := range []struct {
		www, want string
	}{
		{"", "needs the page folder"},
		{noIndex, "has no index.html"},
		{noWasm, "the exported page lacks ambient.wasm"},
	} {
		_, err := Write(context.Background(), Options{WWW: c.www, Out: t.TempDir(), Source: PageSource{Server: "https://a.example", API: "ours"}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("www %q: %v; want an error saying %q", c.www, err, c.want)
		}
	}
}
