// Package npmpkg writes the npm package acambient (docs/interfaces.md §5):
// a folder that `npm pack DIR` and `npm publish DIR` take as it is, holding
// the sound module (ambient.js), the map binding (leaflet-ambient.js), the
// element (ac-ambience.js, docs/interfaces.md §6), every
// module and file they name, their types, the built ambient.wasm with Go's
// wasm_exec.js, a package.json and a README.
//
// What goes in is read off the modules themselves (internal/modgraph): every
// relative `import … from "./x.js"`, `import("./x.js")` and
// `new URL("./x", import.meta.url)` in a packaged module is packaged too (the
// same literal forms bundlers follow), with each module's `.d.ts` and the
// declaration files those import. A module that names a file www lacks is an
// error, so the package cannot ship a broken import.
package npmpkg

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"acambient/internal/modgraph"
)

// Name is the package's npm name.
const Name = "acambient"

// Entries are the package's exports: subpath → module in www, each typed by
// the .d.ts beside it.
var Entries = []struct{ Subpath, Module string }{
	{".", "ambient.js"},
	{"./leaflet", "leaflet-ambient.js"},
	{"./element", "ac-ambience.js"},
}

// Options say what Write reads and writes.
type Options struct {
	WWW     string // the folder of the modules, holding a built ambient.wasm and wasm_exec.js
	Out     string // the package folder; created if missing
	Version string // the package version (semver)
}

// Result is what Write wrote.
type Result struct {
	Files []string // the package's files besides package.json and README.md, sorted
	Bytes int64    // their size
}

// Write writes the package. Out may exist; the files it writes replace
// theirs, and files of an earlier package that this one does not name are
// left alone (npm packs only what "files" names).
func Write(opt Options) (*Result, error) {
	if !semver.MatchString(opt.Version) {
		return nil, fmt.Errorf("npm: version %q is not a semantic version (x.y.z[-pre][+build])", opt.Version)
	}
	files, err := collect(opt.WWW)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, err
	}
	res := &Result{Files: files}
	for _, f := range files {
		n, err := copyFile(filepath.Join(opt.WWW, f), filepath.Join(opt.Out, f))
		if err != nil {
			return nil, fmt.Errorf("npm: %s: %w", f, err)
		}
		res.Bytes += n
	}
	pj, err := packageJSON(opt.Version, files)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(opt.Out, "package.json"), pj, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(opt.Out, "README.md"), []byte(Readme(opt.Version)), 0o644); err != nil {
		return nil, err
	}
	return res, nil
}

// collect lists the files of the package: the entries, what they name,
// transitively, and their declaration files.
func collect(www string) ([]string, error) {
	seen := map[string]bool{}
	var queue []string
	add := func(name, by string) error {
		if seen[name] {
			return nil
		}
		if _, err := os.Stat(filepath.Join(www, name)); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				if by == "" {
					return fmt.Errorf("npm: %s is not in %s", name, www)
				}
				return fmt.Errorf("npm: %s names %s, which %s lacks (is ambient.wasm built?)", by, name, www)
			}
			return err
		}
		seen[name] = true
		queue = append(queue, name)
		return nil
	}
	for _, e := range Entries {
		if err := add(e.Module, ""); err != nil {
			return nil, err
		}
		if err := add(dts(e.Module), ""); err != nil {
			return nil, err
		}
	}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if !strings.HasSuffix(name, ".js") && !strings.HasSuffix(name, ".ts") {
			continue // ambient.wasm
		}
		src, err := os.ReadFile(filepath.Join(www, name))
		if err != nil {
			return nil, err
		}
		for _, ref := range modgraph.References(name, string(src)) {
			if err := add(ref, name); err != nil {
				return nil, err
			}
			// A module's types come along when it has them (Go's glue has none).
			if strings.HasSuffix(ref, ".js") {
				if _, err := os.Stat(filepath.Join(www, dts(ref))); err == nil {
					add(dts(ref), name)
				}
			}
		}
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	slices.Sort(out)
	return out, nil
}

// dts is the declaration file of module name: x.js → x.d.ts.
func dts(name string) string { return strings.TrimSuffix(name, ".js") + ".d.ts" }

// packageJSON is the manifest: the name, the build's version, ES modules,
// the exports with their types, and the files.
func packageJSON(version string, files []string) ([]byte, error) {
	type entry struct {
		Types   string `json:"types"`
		Default string `json:"default"`
	}
	exports := map[string]any{"./package.json": "./package.json"}
	for _, e := range Entries {
		exports[e.Subpath] = entry{Types: "./" + dts(e.Module), Default: "./" + e.Module}
	}
	pkg := struct {
		Name        string         `json:"name"`
		Version     string         `json:"version"`
		Description string         `json:"description"`
		Type        string         `json:"type"`
		Exports     map[string]any `json:"exports"`
		Main        string         `json:"main"`
		Types       string         `json:"types"`
		Files       []string       `json:"files"`
		Keywords    []string       `json:"keywords"`
		// A prerelease (a build of an untagged commit) is published under
		// the dist-tag "next", as npm wants one named, never as "latest".
		PublishConfig *struct {
			Tag string `json:"tag"`
		} `json:"publishConfig,omitempty"`
	}{
		Name:        Name,
		Version:     version,
		Description: "Asheron's Call's retail ambient sound in a web page: the engine (Go in WebAssembly) and a binding for Leaflet maps of Dereth",
		Type:        "module",
		Exports:     exports,
		Main:        "./" + Entries[0].Module,
		Types:       "./" + dts(Entries[0].Module),
		Files:       files,
		Keywords:    []string{"asherons-call", "dereth", "ambient", "sound", "web-audio", "webassembly", "leaflet", "web-component"},
	}
	if strings.Contains(strings.SplitN(version, "+", 2)[0], "-") {
		pkg.PublishConfig = &struct {
			Tag string `json:"tag"`
		}{"next"}
	}
	b, err := json.MarshalIndent(pkg, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// semver is a semantic version as npm takes it.
// (semver.org §9: a numeric prerelease identifier has no leading zero).
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(-(0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*)?` +
	`(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

// GitVersion is the version of the module's checkout at dir: x.y.z when
// its commit is tagged vx.y.z, else Go's pseudo-version of an untagged
// commit, 0.0.0-yyyymmddhhmmss-abcdefabcdef (the commit's time, UTC, and
// its first 12 hex digits). dirty reports uncommitted changes to tracked
// files. An error when git or the checkout is missing.
func GitVersion(dir string) (version string, dirty bool, err error) {
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(ee.Stderr)))
			}
			return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out)), nil
	}
	line, err := git("log", "-1", "--format=%H %ct")
	if err != nil {
		return "", false, err
	}
	var hash string
	var unix int64
	if _, err := fmt.Sscanf(line, "%s %d", &hash, &unix); err != nil || len(hash) < 12 {
		return "", false, fmt.Errorf("git log: %q", line)
	}
	status, err := git("status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return "", false, err
	}
	dirty = status != ""
	if tag, err := git("describe", "--tags", "--exact-match", "--match", "v[0-9]*"); err == nil {
		if v := strings.TrimPrefix(tag, "v"); semver.MatchString(v) {
			return v, dirty, nil
		}
	}
	return "0.0.0-" + time.Unix(unix, 0).UTC().Format("20060102150405") + "-" + hash[:12], dirty, nil
}

func copyFile(src, dst string) (int64, error) {
	b, err := os.ReadFile(src)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, err
	}
	return int64(len(b)), os.WriteFile(dst, b, 0o644)
}
