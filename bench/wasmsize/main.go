// Command wasmsize measures what ambient.wasm holds: it builds the js main
// twice, as serve does (-trimpath -ldflags='-s -w') and with its function
// names kept, reads the second's sections (code, data, names), and prints
// the code by Go package (from the name section: a function's bytes count
// for the package its name starts with), the data segments, and the
// production build's size raw and brotli-compressed at serve's quality.
//
//	go run ./bench/wasmsize [-top 40] [-brotli=false] [-module DIR]
//
// -module measures another checkout (main, for a before/after table).
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(1)
	}
}

func run() error {
	top := flag.Int("top", 40, "packages to list (the rest are summed)")
	br := flag.Bool("brotli", true, "compress the production build as serve does (quality 11: tens of seconds)")
	module := flag.String("module", ".", "the module to build")
	list := flag.String("list", "", "also list this package's functions, largest first")
	flag.Parse()
	dir, err := os.MkdirTemp("", "acambient-wasmsize-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	prod, named := filepath.Join(dir, "prod.wasm"), filepath.Join(dir, "named.wasm")
	if err := build(*module, prod, "-trimpath", "-ldflags=-s -w"); err != nil {
		return err
	}
	if err := build(*module, named, "-trimpath"); err != nil {
		return err
	}
	raw, err := os.ReadFile(prod)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(named)
	if err != nil {
		return err
	}
	m, err := parse(b)
	if err != nil {
		return fmt.Errorf("%s: %w", named, err)
	}

	fmt.Printf("ambient.wasm (as serve builds it): %d B raw", len(raw))
	if *br {
		t0 := time.Now()
		var buf bytes.Buffer
		w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: 11, LGWin: 24})
		w.Write(raw)
		if err := w.Close(); err != nil {
			return err
		}
		fmt.Printf(", %d B brotli (quality 11, in %v)", buf.Len(), time.Since(t0).Round(time.Second))
	}
	fmt.Println()
	fmt.Printf("sections: code %d B (%d functions), data %d B, other %d B (named build: names %d B)\n\n",
		m.code, len(m.funcs), m.data, len(raw)-m.code-m.data, m.names)

	pkgs, err := packages(*module)
	if err != nil {
		return err
	}
	byPkg := map[string]int{}
	for _, f := range m.funcs {
		byPkg[pkgOf(f.name, pkgs)] += f.size
	}
	type row struct {
		pkg  string
		size int
	}
	var rows []row
	for p, s := range byPkg {
		rows = append(rows, row{p, s})
	}
	slices.SortFunc(rows, func(a, b row) int { return b.size - a.size })
	fmt.Printf("| package | code KB | share |\n|---|---|---|\n")
	rest := 0
	for i, r := range rows {
		if i >= *top {
			rest += r.size
			continue
		}
		fmt.Printf("| %s | %.1f | %.1f%% |\n", r.pkg, float64(r.size)/1000, 100*float64(r.size)/float64(m.code))
	}
	if rest > 0 {
		fmt.Printf("| (%d more) | %.1f | %.1f%% |\n", len(rows)-*top, float64(rest)/1000, 100*float64(rest)/float64(m.code))
	}
	if *list != "" {
		var fs []function
		for _, f := range m.funcs {
			if pkgOf(f.name, pkgs) == *list {
				fs = append(fs, f)
			}
		}
		slices.SortFunc(fs, func(a, b function) int { return b.size - a.size })
		fmt.Printf("\n%s: %d functions\n", *list, len(fs))
		for _, f := range fs {
			fmt.Printf("%8d %s\n", f.size, f.name)
		}
	}
	return nil
}

func build(module, out string, flags ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append(append([]string{"build"}, flags...), "-o", out, "./wasm")...)
	cmd.Dir = module
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("GOOS=js GOARCH=wasm go build %s ./wasm: %v\n%s", strings.Join(flags, " "), err, b)
	}
	return nil
}

// packages lists the js main's packages by the name the linker gives
// them: it writes a function's name with every "/" (and "-") of its
// package's path as "_" ("encoding_json.__decodeState_.object").
func packages(module string) (map[string]string, error) {
	cmd := exec.Command("go", "list", "-deps", "./wasm")
	cmd.Dir = module
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps ./wasm: %w", err)
	}
	m := map[string]string{}
	for _, p := range strings.Fields(string(out)) {
		m[strings.Map(func(r rune) rune {
			if r == '/' || r == '-' {
				return '_'
			}
			return r
		}, p)] = p
	}
	return m, nil
}

// pkgOf is the package a function's name starts with: the longest known
// package name followed by a dot, type arguments aside. The linker's
// generated functions ("type:.eq.…", "go:buildid") count under their
// prefix.
func pkgOf(name string, pkgs map[string]string) string {
	for _, p := range []string{"type_.", "type:"} {
		if strings.HasPrefix(name, p) {
			return "type: (generated equality)"
		}
	}
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	best := ""
	for i := 0; i < len(name); i++ {
		if name[i] == '.' {
			if p, ok := pkgs[name[:i]]; ok {
				best = p
			}
		}
	}
	if best == "" {
		if i := strings.IndexAny(name, ".:"); i >= 0 {
			return name[:i+1] + "…"
		}
		return name
	}
	return best
}

type function struct {
	name string
	size int // its body's bytes in the code section, size prefix included
}

type module struct {
	funcs []function
	code  int // code section bytes
	data  int // data section bytes
	names int // the "name" custom section
}

// parse reads a wasm module's sections (the WebAssembly core specification, section 5.5, binary format): the
// imports (functions are numbered imports first), the code bodies and the
// function names.
func parse(b []byte) (*module, error) {
	if len(b) < 8 || !bytes.Equal(b[:4], []byte("\x00asm")) {
		return nil, errors.New("not a wasm module")
	}
	r := &reader{b: b[8:]}
	m := &module{}
	imported := 0
	var bodies []int
	names := map[int]string{}
	for !r.done() {
		id := r.byte()
		sec := r.sub(int(r.uleb()))
		if r.err != nil {
			return nil, r.err
		}
		switch id {
		case 2: // imports
			for n := sec.uleb(); n > 0 && sec.err == nil; n-- {
				sec.name()
				sec.name()
				switch kind := sec.byte(); kind {
				case 0: // a function: its type index
					sec.uleb()
					imported++
				case 1: // a table: reftype, limits
					sec.byte()
					sec.limits()
				case 2: // a memory: limits
					sec.limits()
				case 3: // a global: valtype, mutability
					sec.byte()
					sec.byte()
				default:
					return nil, fmt.Errorf("import of kind %d", kind)
				}
			}
		case 10: // code
			m.code = len(sec.b)
			for n := sec.uleb(); n > 0 && sec.err == nil; n-- {
				start := sec.off
				size := int(sec.uleb())
				sec.sub(size)
				bodies = append(bodies, sec.off-start)
			}
		case 11: // data
			m.data = len(sec.b)
		case 0: // custom
			if sec.name() != "name" {
				continue
			}
			m.names = len(sec.b)
			for !sec.done() && sec.err == nil {
				sid := sec.byte()
				sub := sec.sub(int(sec.uleb()))
				if sid != 1 { // function names
					continue
				}
				for n := sub.uleb(); n > 0 && sub.err == nil; n-- {
					idx := int(sub.uleb())
					names[idx] = sub.name()
				}
				if sub.err != nil {
					return nil, sub.err
				}
			}
		}
		if sec.err != nil {
			return nil, fmt.Errorf("section %d: %w", id, sec.err)
		}
	}
	for i, size := range bodies {
		name, ok := names[imported+i]
		if !ok {
			name = "(unnamed)"
		}
		m.funcs = append(m.funcs, function{name, size})
	}
	return m, nil
}

// reader reads a module's bytes; the first error sticks.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) done() bool { return r.off >= len(r.b) }

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s at byte %d of %d", what, r.off, len(r.b))
	}
}

func (r *reader) byte() byte {
	if r.err != nil || r.done() {
		r.fail("unexpected end")
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *reader) uleb() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail("bad LEB128")
		return 0
	}
	r.off += n
	return v
}

// sub takes the next n bytes as a reader of their own.
func (r *reader) sub(n int) *reader {
	if r.err != nil || n < 0 || n > len(r.b)-r.off {
		r.fail("a length past the end")
		return &reader{err: r.err}
	}
	s := &reader{b: r.b[r.off : r.off+n]}
	r.off += n
	return s
}

func (r *reader) name() string { return string(r.sub(int(r.uleb())).b) }

func (r *reader) limits() {
	if r.byte()&1 != 0 {
		r.uleb()
	}
	r.uleb()
}
