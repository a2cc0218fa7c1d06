package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Bounds of the in-memory www cache: the page files are few (ambient.wasm is
// the largest, a few MB), so each is read and gzipped once per version.
const (
	staticFileMax  = 32 << 20  // larger files are streamed from disk, uncompressed
	staticCacheMax = 128 << 20 // past this the cache starts over
)

// contentTypes pins the types the page depends on rather than trusting the
// host's mime tables: browsers compile wasm streaming only as application/wasm
// and load ES modules only with a JavaScript type; ".ts" is the typings file
// ambient.d.ts, which some tables call an MPEG transport stream.
var contentTypes = map[string]string{
	".wasm": "application/wasm",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".json": "application/json",
	".map":  "application/json",
	".svg":  "image/svg+xml",
	".ts":   "text/plain; charset=utf-8",
	".txt":  "text/plain; charset=utf-8",
	".md":   "text/plain; charset=utf-8",
}

// compressible are the extensions worth gzipping (docs/interfaces.md §2.2 names
// .wasm .js .html .css); images and audio are compressed already.
var compressible = map[string]bool{
	".wasm": true, ".js": true, ".mjs": true, ".html": true, ".css": true,
	".json": true, ".map": true, ".svg": true, ".ts": true, ".txt": true, ".md": true,
}

func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// static serves the www folder.
type static struct {
	dir string

	mu    sync.Mutex
	files map[string]*cachedFile
	total int64

	page versionedIndex // index.html as served (pagever.go)
}

// cachedFile is one version of a file: the first request for it reads it
// and closes ready; requests meanwhile wait for that read rather than making
// their own, and share its payload, whose gzip form is also made once.
type cachedFile struct {
	mod   time.Time
	size  int64
	ready chan struct{}
	p     *payload
	err   error

	waiters atomic.Int32 // requests waiting on ready (static.waiting)
}

func newStatic(dir string) *static {
	return &static{dir: dir, files: map[string]*cachedFile{}}
}

// static answers a path outside the record routes from the www folder; "/"
// without www/index.html answers the generated index.
func (h *Handler) static(w http.ResponseWriter, r *http.Request, segs []string) {
	for _, s := range segs {
		if strings.HasPrefix(s, ".") { // .gitkeep, editor and VCS files
			http.NotFound(w, r)
			return
		}
	}
	name := strings.Join(segs, "/")
	if name == "" || strings.HasSuffix(name, "/") {
		name += "index.html"
	}
	err := h.www.serve(w, r, name)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist) && name == "index.html":
		h.serveIndex(w, r)
	case errors.Is(err, fs.ErrNotExist):
		http.NotFound(w, r)
	default:
		h.log.Printf("serve: www %s: %v", name, err)
		http.Error(w, "cannot read "+name, http.StatusInternalServerError)
	}
}

// serve writes www/name, or returns an error wrapping fs.ErrNotExist. It
// opens files through os.Root, which refuses any path (or symlink) leading
// outside the folder, behind splitPath's refusal of "..".
func (s *static) serve(w http.ResponseWriter, r *http.Request, name string) error {
	if s.dir == "" {
		return fs.ErrNotExist
	}
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return err
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		// Missing, unreadable, or a symlink out of the folder: all look
		// alike from outside.
		return fmt.Errorf("%w: %v", fs.ErrNotExist, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.IsDir() {
		// Like http.FileServer: a folder is addressed with its slash, so the
		// relative links of its index.html resolve inside it.
		if !strings.HasSuffix(r.URL.Path, "/") {
			http.Redirect(w, r, path.Base(r.URL.Path)+"/", http.StatusMovedPermanently)
			return nil
		}
		return fs.ErrNotExist
	}
	// A page file changes with every build (ambient.wasm, the modules):
	// revalidated, unless asked by its current content's version
	// (pagever.go), which names those bytes for good.
	asked := r.URL.Query().Get(versionParam)
	cacheControl := "no-cache"
	var p *payload
	if asked != "" && st.Size() <= staticFileMax {
		if p, err = s.cached(r.Context(), name, f, st); err != nil {
			return err
		}
		if immutableFor(name, asked, p) {
			cacheControl = recordCacheControl
		}
	}
	w.Header().Set("Cache-Control", cacheControl)
	if name != indexPage && s.serveBrotli(w, r, root, name, st) {
		return nil
	}
	if st.Size() > staticFileMax {
		w.Header().Set("Content-Type", contentType(name))
		http.ServeContent(w, r, name, st.ModTime(), f)
		return nil
	}
	if p == nil {
		if p, err = s.cached(r.Context(), name, f, st); err != nil {
			return err
		}
	}
	if name == indexPage {
		// Served with the versions of the files it names (pagever.go).
		if p, err = s.index(r.Context(), root, p, st); err != nil {
			return err
		}
	}
	p.serve(w, r)
	return nil
}

// cached returns the file's payload, reading it when this version is new.
// Concurrent first requests for a version share one read (issue 8: 30 cold
// requests for a 31 MB file each read and gzipped it, 1.87 GB).
func (s *static) cached(ctx context.Context, name string, f io.Reader, st fs.FileInfo) (*payload, error) {
	s.mu.Lock()
	c, ok := s.files[name]
	if !ok || !c.mod.Equal(st.ModTime()) || c.size != st.Size() {
		c = &cachedFile{mod: st.ModTime(), size: st.Size(), ready: make(chan struct{})}
		s.insert(name, c)
		s.mu.Unlock()
		s.load(name, c, f)
		return c.p, c.err
	}
	s.mu.Unlock()
	c.waiters.Add(1)
	defer c.waiters.Add(-1)
	select {
	case <-c.ready:
		return c.p, c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// waiting is the number of requests waiting for name's read in flight: how
// a test knows every concurrent request has joined one read before it lets
// that read finish.
func (s *static) waiting(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.files[name]; ok {
		return int(c.waiters.Load())
	}
	return 0
}

// insert adds c under name, making room; s.mu is held.
func (s *static) insert(name string, c *cachedFile) {
	if old, ok := s.files[name]; ok {
		s.total -= old.size
	}
	if s.total+c.size > staticCacheMax {
		s.files, s.total = map[string]*cachedFile{}, 0
	}
	s.files[name] = c
	s.total += c.size
}

// load reads c's version of the file and wakes its waiters. A failed read,
// or a file changing under it, is served to them but not kept.
func (s *static) load(name string, c *cachedFile, f io.Reader) {
	defer close(c.ready)
	// One allocation at the size Stat gave (≤ staticFileMax), not a doubling one.
	b := make([]byte, c.size)
	n, err := io.ReadFull(f, b)
	changed := n < len(b)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		b, err = b[:n], nil // shrunk since Stat
	} else if err == nil {
		var one [1]byte
		m, _ := f.Read(one[:])
		changed = m > 0 // grown since Stat: serve the Stat size's worth
	}
	if err == nil {
		c.p = newPayload(contentType(name), b, c.mod, compressible[strings.ToLower(path.Ext(name))])
	}
	c.err = err
	if err != nil || changed {
		s.mu.Lock()
		if s.files[name] == c {
			delete(s.files, name)
			s.total -= c.size
		}
		s.mu.Unlock()
	}
}

// serveBrotli sends name's precompressed sibling name+".br" (written by
// WasmBuild.Precompress for the wasm) to a client that accepts br, when the
// sibling is at least as new as the file. It reports whether it did.
func (s *static) serveBrotli(w http.ResponseWriter, r *http.Request, root *os.Root, name string, st fs.FileInfo) bool {
	if !compressible[strings.ToLower(path.Ext(name))] || !acceptsBrotli(r.Header.Get("Accept-Encoding")) {
		return false
	}
	f, err := root.Open(name + ".br")
	if err != nil {
		return false
	}
	defer f.Close()
	bst, err := f.Stat()
	if err != nil || bst.IsDir() || bst.ModTime().Before(st.ModTime()) {
		return false
	}
	h := w.Header()
	h.Set("Content-Type", contentType(name))
	h.Set("Content-Encoding", "br")
	h.Add("Vary", "Accept-Encoding")
	h.Set("ETag", fmt.Sprintf(`"%x-%x-br"`, st.ModTime().UnixNano(), bst.Size()))
	http.ServeContent(w, r, "", bst.ModTime(), f)
	return true
}
