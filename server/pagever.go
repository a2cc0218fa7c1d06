package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"acambient/internal/modgraph"
)

// A page file named by its content (docs/interfaces.md §2.2): index.html as
// served and exported asks for each file it names, and each module the page
// reaches, as name?v=VERSION, VERSION the first versionLen hex digits of the
// SHA-256 of the file's bytes; serve answers such a request, while VERSION is
// the file's current one, as immutable for a year. A second visit then
// revalidates index.html alone, not the 17 files it names, which over
// HTTP/1.1's six connections queued behind each other (issue 18: the wasm's
// 304 came back 555 ms after navigation at 10 Mbit/s 40 ms).
const (
	// versionParam is the query parameter that carries the version.
	versionParam = "v"
	// versionLen hex digits: 48 bits, as many as Vite's 8 base64url
	// characters. What a collision costs is a browser keeping an old file
	// after an edit, once in 2^48 edits of that file; longer names buy
	// nothing a developer would notice, shorter ones make it likelier.
	versionLen = 12
)

// indexPage is the page file that carries the versions: never versioned
// itself, always revalidated.
const indexPage = "index.html"

// contentVersion is b's version.
func contentVersion(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:versionLen]
}

var (
	// pageTags are the tags whose src= or href= the browser fetches as a
	// subresource: scripts, style sheets, preloads, icons (an <a>'s link is
	// a navigation, and stays as written).
	pageTags = regexp.MustCompile(`(?i)<(?:link|script)\b[^>]*>`)
	// tagRefs is an attribute of such a tag naming a URL.
	tagRefs = regexp.MustCompile(`(?i)(\b(?:src|href)\s*=\s*")([^"]*)(")`)
	// ownImportMap: a page with an import map of its own is left as written
	// (two maps do not merge in every engine, and a module's URL must be one
	// or the page runs it twice).
	ownImportMap = regexp.MustCompile(`(?i)<script\b[^>]*\btype\s*=\s*"?importmap`)
)

// pageVersions walks the graph of index.html (modgraph.References: what the
// page names, what each module names in turn) and returns the version of
// every file of it that read finds, by its slash-separated name. read
// returns a file's bytes, or ok false for one it lacks or will not version
// (too large to hold).
func pageVersions(index []byte, read func(name string) (b []byte, ok bool, err error)) (map[string]string, error) {
	versions := map[string]string{}
	seen := map[string]bool{indexPage: true}
	queue := modgraph.References(indexPage, string(index))
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		b, ok, err := read(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if !ok {
			continue
		}
		versions[name] = contentVersion(b)
		if strings.HasSuffix(name, ".js") {
			queue = append(queue, modgraph.References(name, string(b))...)
		}
	}
	return versions, nil
}

// versionPage rewrites index: each <link> and <script> naming a file of
// versions asks for it as name?v=VERSION, and an import map, before the
// first of those tags, maps each module's plain URL to that versioned one,
// so that the modules' own relative imports ("./geo.js", import
// ("./wasm_exec.js")) reach the same, cached, URLs. An engine without
// import maps ignores the map and imports the plain URLs: correct, only
// revalidated. A page with an import map of its own, or naming none of
// versions, is returned as it is.
func versionPage(index []byte, versions map[string]string) []byte {
	if len(versions) == 0 || ownImportMap.Match(index) {
		return index
	}
	imports := map[string]string{}
	for name, v := range versions {
		// The wasm too: ambient.js resolves its URL through the map
		// (import.meta.resolve), for its worker to fetch.
		if strings.HasSuffix(name, ".js") || strings.HasSuffix(name, ".wasm") {
			imports["./"+name] = "./" + name + "?" + versionParam + "=" + v
		}
	}
	out := pageTags.ReplaceAllFunc(index, func(tag []byte) []byte {
		return tagRefs.ReplaceAllFunc(tag, func(attr []byte) []byte {
			m := tagRefs.FindSubmatch(attr)
			ref := string(m[2])
			if strings.ContainsAny(ref, "?#") {
				return attr // a query of its own: not ours to extend
			}
			name, ok := modgraph.Resolve(indexPage, ref)
			v := versions[name]
			if !ok || v == "" {
				return attr
			}
			return []byte(string(m[1]) + ref + "?" + versionParam + "=" + v + string(m[3]))
		})
	})
	if len(imports) == 0 {
		return out
	}
	loc := pageTags.FindIndex(out)
	if loc == nil {
		return out
	}
	// json.Marshal sorts the keys (one page, one byte sequence) and escapes
	// <, > and &, so nothing in it can close the script element.
	b, err := json.MarshalIndent(map[string]any{"imports": imports}, "", " ")
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	mapTag := `<script type="importmap">` + string(b) + "</script>\n"
	return append(append(append([]byte{}, out[:loc[0]]...), mapTag...), out[loc[0]:]...)
}

// VersionIndexFile rewrites dir/index.html as serve sends it (export: a
// static host that honours the query gets the same second visit; one that
// ignores it serves the plain file, which is the same bytes).
func VersionIndexFile(dir string) error {
	p := filepath.Join(dir, indexPage)
	index, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	versions, err := pageVersions(index, func(name string) ([]byte, bool, error) {
		f := filepath.Join(dir, filepath.FromSlash(name))
		st, err := os.Stat(f)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		if err != nil || !st.Mode().IsRegular() || st.Size() > staticFileMax {
			return nil, false, err
		}
		b, err := os.ReadFile(f)
		return b, err == nil, err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return os.WriteFile(p, versionPage(index, versions), 0o644)
}

// versionedIndex is serve's index.html, rewritten by versionPage, and what
// it was made from: the rewrite is made again when any of those files has
// changed (serve -www is a folder developers edit).
type versionedIndex struct {
	mu   sync.Mutex
	deps []pageDep
	p    *payload
}

// pageDep is a file a rewrite read, as Stat gave it; a file the page named
// but the folder lacked is kept too, so that its arrival is a change.
type pageDep struct {
	name   string
	exists bool
	mod    time.Time
	size   int64
}

// fresh reports whether every file the last rewrite read is as it was.
func (v *versionedIndex) fresh(root *os.Root) bool {
	for _, d := range v.deps {
		if !d.current(root) {
			return false
		}
	}
	return true
}

// current reports whether the file is as it was.
func (d pageDep) current(root *os.Root) bool {
	st, err := root.Stat(d.name)
	if err != nil {
		return !d.exists
	}
	return d.exists && st.ModTime().Equal(d.mod) && st.Size() == d.size
}

// index returns index.html, versioned, from raw (its bytes as read at
// version st) and the page files under root: the last rewrite while
// nothing it read has changed.
func (s *static) index(ctx context.Context, root *os.Root, raw *payload, st fs.FileInfo) (*payload, error) {
	v := &s.page
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.p != nil && v.fresh(root) {
		return v.p, nil
	}
	deps := []pageDep{{name: indexPage, exists: true, mod: st.ModTime(), size: st.Size()}}
	latest := st.ModTime()
	versions, err := pageVersions(raw.b, func(name string) ([]byte, bool, error) {
		p, fst, err := s.file(ctx, root, name)
		if errors.Is(err, fs.ErrNotExist) {
			deps = append(deps, pageDep{name: name})
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		deps = append(deps, pageDep{name: name, exists: true, mod: fst.ModTime(), size: fst.Size()})
		latest = later(latest, fst.ModTime())
		if p == nil {
			return nil, false, nil // too large to hold: served plain, revalidated
		}
		return p.b, true, nil
	})
	if err != nil {
		return nil, err
	}
	// Last-Modified: the rewrite changes when any file it names does.
	v.p = newPayload(contentType(indexPage), versionPage(raw.b, versions), latest, true)
	v.deps = deps
	return v.p, nil
}

// file returns name's payload under root and its Stat (the payload nil
// for a file too large to hold), or an error wrapping fs.ErrNotExist for
// one that is not a regular file there.
func (s *static) file(ctx context.Context, root *os.Root, name string) (*payload, fs.FileInfo, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", fs.ErrNotExist, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: %w: not a file", name, fs.ErrNotExist)
	}
	if st.Size() > staticFileMax {
		return nil, st, nil
	}
	p, err := s.cached(ctx, name, f, st)
	return p, st, err
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// immutableFor reports whether a request for name asking version asked may
// be answered immutable: asked is name's current version. A stale or
// malformed one is answered as a plain request is (no-cache, with the
// current bytes): the page that named it is revalidated and gets the
// current names, and in the moment between an edit and that, the current
// file is what a plain URL gives too; a 404 there would break a page
// loading while a developer saves a file, and gain nothing.
func immutableFor(name, asked string, p *payload) bool {
	return asked != "" && name != indexPage && p != nil && p.version() == asked
}
