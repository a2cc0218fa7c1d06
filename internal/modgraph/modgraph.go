// Package modgraph reads which files a page names, in the literal forms
// browsers and bundlers follow: an HTML page's relative src= and href=
// attributes, a module's static and dynamic imports of "./x.js" and its
// new URL("./x", import.meta.url), a declaration file's imports. The npm
// package (internal/npmpkg) and export's check of a page (server) both take
// their file lists from here, so a module added to the page is shipped and
// checked without a list to keep in step with it.
package modgraph

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

var (
	// htmlRefs: the attributes that make a browser fetch (scripts, style
	// sheets, preloads); absolute URLs and data: are filtered after.
	htmlRefs = regexp.MustCompile(`\b(?:src|href)\s*=\s*"([^"]+)"`)
	// jsRefs: the relative forms bundlers follow in a module.
	jsRefs = []*regexp.Regexp{
		regexp.MustCompile(`(?:\bfrom|\bimport)\s*\(?\s*"(\.\.?/[^"]+\.js)"`),
		regexp.MustCompile(`new URL\(\s*"(\.\.?/[^"]+)"\s*,\s*import\.meta\.url\s*\)`),
	}
	// dtsRefs: what a declaration file imports or re-exports.
	dtsRefs = regexp.MustCompile(`\bfrom\s*"(\./[^"]+)"`)
)

// References lists the files that file (by its slash-separated name in the
// page's folder) names in src, as names in that folder: a declaration
// file's imports as declaration files (./geo → geo.d.ts).
func References(file, src string) []string {
	dir := path.Dir(file)
	var refs []string
	switch {
	case strings.HasSuffix(file, ".d.ts"):
		for _, m := range dtsRefs.FindAllStringSubmatch(src, -1) {
			refs = append(refs, path.Join(dir, strings.TrimSuffix(m[1], ".js")+".d.ts"))
		}
	case strings.HasSuffix(file, ".js"):
		for _, re := range jsRefs {
			for _, m := range re.FindAllStringSubmatch(src, -1) {
				if ref, ok := local(dir, m[1]); ok {
					refs = append(refs, ref)
				}
			}
		}
	case strings.HasSuffix(file, ".html"):
		for _, m := range htmlRefs.FindAllStringSubmatch(src, -1) {
			if ref, ok := local(dir, m[1]); ok {
				refs = append(refs, ref)
			}
		}
	}
	return refs
}

// File is one file of a page's graph.
type File struct {
	Name    string // slash-separated, in the page's folder
	By      string // the first file found naming it; "" for an entry
	Missing bool   // named, but the folder lacks it
}

// Walk lists, sorted by name, entries and every file they name in dir,
// transitively. A named file that dir lacks is listed as Missing and not
// followed: what its absence means (an error, a warning) is the caller's to
// say. Only reading a file that is there can fail.
func Walk(dir string, entries ...string) ([]File, error) {
	seen := map[string]bool{}
	var out []File
	queue := make([]File, 0, len(entries))
	for _, e := range entries {
		queue = append(queue, File{Name: e})
	}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		if seen[f.Name] {
			continue
		}
		seen[f.Name] = true
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			f.Missing = true
		} else if err != nil {
			return nil, err
		}
		out = append(out, f)
		if f.Missing || !(strings.HasSuffix(f.Name, ".js") || strings.HasSuffix(f.Name, ".ts") || strings.HasSuffix(f.Name, ".html")) {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		for _, ref := range References(f.Name, string(src)) {
			queue = append(queue, File{Name: ref, By: f.Name})
		}
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Resolve is the file of the page's folder that a reference ref in file
// names (an attribute's URL in an HTML page, a module's relative import),
// as References resolves it; ok false for another origin, a scheme, a
// fragment alone or a path above the folder.
func Resolve(file, ref string) (name string, ok bool) { return local(path.Dir(file), ref) }

// local resolves an HTML attribute's URL against dir when it names a file
// of the page's own folder: not another origin, a scheme (data:, https:), a
// fragment alone, or a path above the folder.
func local(dir, ref string) (string, bool) {
	if i := strings.IndexAny(ref, "?#"); i >= 0 {
		ref = ref[:i]
	}
	if ref == "" || strings.HasPrefix(ref, "//") || strings.Contains(strings.SplitN(ref, "/", 2)[0], ":") {
		return "", false
	}
	var p string
	if strings.HasPrefix(ref, "/") {
		p = path.Clean(ref[1:])
	} else {
		p = path.Join(dir, ref)
	}
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}
