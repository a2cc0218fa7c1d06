package e2e

// The GitHub Pages workflow (.github/workflows/pages.yml) cannot run here;
// its steps can. TestPagesWorkflow reads the workflow, checks the parts
// GitHub runs (the official actions, the permissions a Pages deployment
// needs, the triggers, the source it publishes), then runs its build job's
// run: steps exactly as written, in a copy of the repository as a checkout
// holds it, with SOURCE pointed at the acdatservice emulation on another
// origin; serves the folder the upload step publishes with Go's plain file
// server; and listens to the page in Chromium by the river.

import (
	"bytes"
	"context"
	"io/fs"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"acambient/internal/export"
)

// The workflow's shape, as much of it as is checked here.
type ghWorkflow struct {
	On          map[string]any `yaml:"on"`
	Concurrency struct {
		Group            string `yaml:"group"`
		CancelInProgress bool   `yaml:"cancel-in-progress"`
	} `yaml:"concurrency"`
	Permissions map[string]string `yaml:"permissions"`
	Env         map[string]string `yaml:"env"`
	Jobs        map[string]ghJob  `yaml:"jobs"`
}

type ghJob struct {
	Needs       any               `yaml:"needs"`
	Permissions map[string]string `yaml:"permissions"`
	Environment struct {
		Name string `yaml:"name"`
		URL  string `yaml:"url"`
	} `yaml:"environment"`
	Steps []ghStep `yaml:"steps"`
}

type ghStep struct {
	ID   string            `yaml:"id"`
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
	Env  map[string]string `yaml:"env"`
}

// action is the owner/name a uses: names, without its @version.
func (s ghStep) action() string { a, _, _ := strings.Cut(s.Uses, "@"); return a }

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

func readWorkflow(t *testing.T) ghWorkflow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(), ".github", "workflows", "pages.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var w ghWorkflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("pages.yml: %v", err)
	}
	return w
}

// TestPagesWorkflowShape: what GitHub needs of a Pages workflow, and that it
// publishes real Dereth.
func TestPagesWorkflowShape(t *testing.T) {
	w := readWorkflow(t)
	push, _ := w.On["push"].(map[string]any)
	if _, ok := w.On["workflow_dispatch"]; !ok || push == nil || !slices.Contains(anyStrings(push["branches"]), "main") {
		t.Errorf("on: %v; want push to main and workflow_dispatch", w.On)
	}
	if w.Concurrency.Group == "" || w.Concurrency.CancelInProgress {
		t.Errorf("concurrency %+v; want one group, a deployment in progress not cancelled", w.Concurrency)
	}
	if w.Env["SOURCE"] != "https://dats.treestats.net" || w.Env["API"] != "acdatservice" {
		t.Errorf("env %v; want SOURCE https://dats.treestats.net, API acdatservice (real Dereth)", w.Env)
	}
	build, deploy := w.Jobs["build"], w.Jobs["deploy"]
	var actions []string
	for _, s := range build.Steps {
		if s.Uses != "" {
			actions = append(actions, s.action())
			if !strings.Contains(s.Uses, "@v") {
				t.Errorf("%s: want a major version (@vN)", s.Uses)
			}
		}
		if s.action() == "actions/setup-go" && s.With["go-version-file"] != "go.mod" {
			t.Errorf("setup-go with %v; want go-version-file: go.mod", s.With)
		}
	}
	if want := []string{"actions/checkout", "actions/setup-go", "actions/configure-pages", "actions/upload-pages-artifact"}; !slices.Equal(actions, want) {
		t.Errorf("build job's actions %v; want %v", actions, want)
	}
	if deploy.Needs != "build" || len(deploy.Steps) != 1 || deploy.Steps[0].action() != "actions/deploy-pages" ||
		deploy.Environment.Name != "github-pages" || !strings.Contains(deploy.Environment.URL, "steps."+deploy.Steps[0].ID+".outputs.page_url") {
		t.Errorf("deploy job %+v; want actions/deploy-pages after build, in the github-pages environment at its page_url", deploy)
	}
	if deploy.Permissions["pages"] != "write" || deploy.Permissions["id-token"] != "write" {
		t.Errorf("deploy permissions %v; want pages: write and id-token: write", deploy.Permissions)
	}
}

func anyStrings(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// TestPagesWorkflow runs the build job's steps and plays what they publish,
// in Chromium (the steps and their tree, not the engine, are under test).
func TestPagesWorkflow(t *testing.T) { forEngines(t, []string{"chromium"}, pagesWorkflow) }

func pagesWorkflow(t *testing.T, spec browserSpec) {
	w := readWorkflow(t)
	s := srcServers(t) // the emulation, and the browser's tools (or a skip)

	// The run: steps before the upload, and the folder it uploads.
	var runs []ghStep
	artifact := ""
	for _, st := range w.Jobs["build"].Steps {
		if st.action() == "actions/upload-pages-artifact" {
			artifact = st.With["path"]
			break
		}
		if st.Run != "" {
			runs = append(runs, st)
		}
	}
	if artifact == "" || len(runs) == 0 {
		t.Fatalf("pages.yml: %d run steps before an upload of %q; want some, and a path", len(runs), artifact)
	}

	// A checkout: the repository's files as git has them (ignored build
	// products such as www/ambient.wasm left out), in a folder of its own.
	repo := filepath.Join(t.TempDir(), "repo")
	checkout(t, repoRoot(), repo)

	env := os.Environ()
	for k, v := range w.Env {
		env = append(env, k+"="+v)
	}
	env = append(env, "SOURCE="+s.emuURL) // the one change: the emulation for dats.treestats.net
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	for _, st := range runs {
		// GitHub's default shell on ubuntu runners.
		cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", st.Run)
		cmd.Dir = repo
		cmd.Env = env
		for k, v := range st.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.CombinedOutput()
		t.Logf("step %q: %s\n%s", st.Name, st.Run, bytes.TrimSpace(out))
		if err != nil {
			t.Fatalf("step %q: %v", st.Name, err)
		}
	}

	// The published folder: the page alone.
	siteDir := filepath.Join(repo, artifact)
	for _, f := range []string{"index.html", "app.js", "ambient.js", "ambient.wasm", "wasm_exec.js", "page/source.js"} {
		if _, err := os.Stat(filepath.Join(siteDir, f)); err != nil {
			t.Errorf("the published folder lacks %s", f)
		}
	}
	for _, f := range []string{"files", "cell", "dats", "zones.json", "zones.png"} {
		if _, err := os.Stat(filepath.Join(siteDir, f)); err == nil {
			t.Errorf("the published folder holds %s; want the page alone", f)
		}
	}
	// Its default source is SOURCE (www/index.html's empty meta would
	// read the static host, which holds no records).
	if b, err := os.ReadFile(filepath.Join(siteDir, "index.html")); err != nil || !strings.Contains(string(b), export.PageSource{Server: s.emuURL, API: w.Env["API"]}.Meta()) {
		t.Errorf("the published index.html (%v) does not name %s (%s) as its source", err, s.emuURL, w.Env["API"])
	}
	if err := filepath.WalkDir(siteDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type()&fs.ModeSymlink != 0 {
			t.Errorf("%s is a symlink (a Pages artifact must hold none)", p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}

	// A plain static host.
	mime.AddExtensionType(".wasm", "application/wasm")
	var records atomic.Int64
	files := http.FileServer(http.Dir(siteDir))
	host := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/files/") {
			records.Add(1)
		}
		files.ServeHTTP(rw, r)
	}))
	t.Cleanup(host.Close)

	b := srcOpenIn(t, spec)
	b.do("goto", "url", host.URL+"/#0xA9B5002D/120,96,22.85")
	b.waitFor(`window.ambient && window.ambient.info.landmarks.length > 0`, 60*time.Second)
	emuHost := strings.TrimPrefix(s.emuURL, "http://")
	if now := srcText(b, "srcNow"); now != "Playing the demo world, from "+emuHost+" (acdatservice)." {
		t.Errorf("source line %q; want Playing the demo world, from %s (acdatservice).", now, emuHost)
	}
	lfClickElement(b, "#overlay")
	b.waitFor(`window.ambient.running`, 10*time.Second)
	srcLandmark(t, b, "river")
	if n := records.Load(); n != 0 {
		t.Errorf("the static host saw %d record requests; want every record from the source", n)
	}
	if s.emu.Hits("/dats/portal/files/0x13000000") == 0 || s.compressedHits() == 0 {
		t.Errorf("the emulation saw %d region requests, %d of compressed records; want both > 0",
			s.emu.Hits("/dats/portal/files/0x13000000"), s.compressedHits())
	}
	lfNoErrors(t, b)
}

// checkout copies the files of the repository at root that git tracks or
// would (untracked files not ignored), or, outside a git work tree, every
// file but dot folders and the ignored build products, into dst.
func checkout(t *testing.T, root, dst string) {
	t.Helper()
	var names []string
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		for _, n := range strings.Split(string(out), "\x00") {
			if n != "" {
				names = append(names, n)
			}
		}
	} else {
		t.Logf("git ls-files: %v; copying the tree", err)
		built := map[string]bool{"www/ambient.wasm": true, "www/ambient.wasm.br": true, "www/wasm_exec.js": true}
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if d.IsDir() && strings.HasPrefix(d.Name(), ".") && rel != "." && d.Name() != ".github" && d.Name() != ".ci" {
				return filepath.SkipDir
			}
			if !d.IsDir() && !built[filepath.ToSlash(rel)] {
				names = append(names, rel)
			}
			return nil
		})
	}
	for _, n := range names {
		src := filepath.Join(root, n)
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the work tree but not yet in the index, or a link
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}
