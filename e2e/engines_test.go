package e2e

// The browsers the tests drive through browsers.mjs: Debian's chromium
// (npm playwright-core), firefox-esr (npm puppeteer-core, WebDriver BiDi)
// and WebKitGTK's MiniBrowser (WebKitWebDriver under Xvfb, no npm package).
// The npm drivers are installed, pinned, into the user cache.
//
// ACAMBIENT_E2E_ENGINES (a comma list, e.g. "chromium,webkit") limits the
// engines a test runs in; unset, every engine the test supports. A selected
// engine that is not installed skips its subtest locally and fails it when
// CI=true.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	playwrightVersion = "1.65.1"
	// The last puppeteer-core line for node 20 (25 wants node 22).
	puppeteerVersion = "24.43.1"
)

// allEngines are the engines the demo page's scenario runs in; the map
// binding's tests need route (the CDN answered from npm's Leaflet), which
// WebDriver classic lacks, so they run in the first two.
var (
	allEngines     = []string{"chromium", "firefox", "webkit"}
	leafletEngines = []string{"chromium", "firefox"}
)

// browserSpec is what browsers.mjs reads from ACAMBIENT_E2E_BROWSER.
type browserSpec struct {
	Engine     string `json:"engine"`
	Executable string `json:"executable"`        // the browser (webkit: MiniBrowser)
	Modules    string `json:"modules,omitempty"` // node_modules holding the engine's npm driver
	WebDriver  string `json:"webdriver,omitempty"`
}

// e2eMissing skips a test that needs what this machine lacks, or fails it
// under CI=true, where everything must be there.
func e2eMissing(t *testing.T, format string, a ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, a...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("e2e: %s (CI=true: the browser tests must run)", msg)
	}
	t.Skipf("e2e: %s; skipping (.ci/run lists the Debian packages)", msg)
}

// forEngines runs f as one subtest per engine of engines that
// ACAMBIENT_E2E_ENGINES selects, the engines side by side: each waits
// mostly on real-time audio, so together they keep the package well inside
// `go test`'s ten minutes (serially, about nine on a busy 2-core machine).
// Every wait is on reported state, so a slower machine makes them slower,
// not wrong.
func forEngines(t *testing.T, engines []string, f func(t *testing.T, b browserSpec)) {
	t.Helper()
	runEngines(t, engines, true, f)
}

// forEnginesAlone runs f as one subtest per engine, one engine after the
// other and beside no other test (the top-level test is not parallel, so
// Go's runner holds every parallel test until it ends): for a measure of
// the page under a load the test makes itself (the main thread held), not
// under two other browsers' on this 2-core machine.
func forEnginesAlone(t *testing.T, engines []string, f func(t *testing.T, b browserSpec)) {
	t.Helper()
	runEngines(t, engines, false, f)
}

func runEngines(t *testing.T, engines []string, parallel bool, f func(t *testing.T, b browserSpec)) {
	t.Helper()
	sel := os.Getenv("ACAMBIENT_E2E_ENGINES")
	for _, e := range engines {
		t.Run(e, func(t *testing.T) {
			if sel != "" && !slices.Contains(strings.Split(sel, ","), e) {
				t.Skipf("ACAMBIENT_E2E_ENGINES=%s", sel)
			}
			if parallel {
				t.Parallel()
			}
			f(t, needBrowser(t, e))
		})
	}
}

// needBrowser finds engine's browser and node, and installs its npm driver.
func needBrowser(t *testing.T, engine string) browserSpec {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		e2eMissing(t, "no node")
	}
	b := browserSpec{Engine: engine}
	switch engine {
	case "chromium":
		b.Executable = firstFile("/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser")
		if b.Executable == "" {
			e2eMissing(t, "no chromium (apt-get install chromium)")
		}
		b.Modules = npmPackage(t, "playwright-core", playwrightVersion)
	case "firefox":
		b.Executable = firstFile("/usr/bin/firefox-esr", "/usr/bin/firefox")
		if b.Executable == "" {
			e2eMissing(t, "no firefox (apt-get install firefox-esr)")
		}
		b.Modules = npmPackage(t, "puppeteer-core", puppeteerVersion)
	case "webkit":
		var mini []string
		for _, g := range []string{"/usr/lib/*/webkit2gtk-4.1/MiniBrowser", "/usr/lib/*/webkit2gtk-4.0/MiniBrowser", "/usr/lib/*/webkitgtk-6.0/MiniBrowser"} {
			m, _ := filepath.Glob(g)
			mini = append(mini, m...)
		}
		wd, err := exec.LookPath("WebKitWebDriver")
		if err != nil || len(mini) == 0 {
			e2eMissing(t, "no WebKitWebDriver or MiniBrowser (apt-get install webkit2gtk-driver)")
		}
		if _, err := exec.LookPath("Xvfb"); err != nil {
			e2eMissing(t, "no Xvfb (apt-get install xvfb)")
		}
		b.Executable, b.WebDriver = mini[0], wd
	default:
		t.Fatalf("no engine %q", engine)
	}
	return b
}

func firstFile(paths ...string) string {
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

var npmInstalls sync.Map // "name@version" → *npmInstall

type npmInstall struct {
	once sync.Once
	dir  string
	err  error
}

// npmPackage installs name@version (once per cache folder) and returns the
// node_modules folder that holds it. Never `npx playwright install` or a
// browser download: the tests use Debian's browsers.
func npmPackage(t *testing.T, name, version string) string {
	t.Helper()
	v, _ := npmInstalls.LoadOrStore(name+"@"+version, &npmInstall{})
	in := v.(*npmInstall)
	in.once.Do(func() {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		prefix := filepath.Join(cache, "acambient-e2e", name+"-"+version)
		in.dir = filepath.Join(prefix, "node_modules")
		var pj struct{ Version string }
		if b, err := os.ReadFile(filepath.Join(in.dir, name, "package.json")); err == nil && json.Unmarshal(b, &pj) == nil && pj.Version == version {
			return
		}
		if _, err := exec.LookPath("npm"); err != nil {
			in.err = fmt.Errorf("no npm to install %s", name)
			return
		}
		out, err := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", prefix, name+"@"+version).CombinedOutput()
		if err != nil {
			in.err = fmt.Errorf("npm install %s@%s: %v\n%s", name, version, err, out)
		}
	})
	if in.err != nil {
		if strings.HasPrefix(in.err.Error(), "no npm") {
			e2eMissing(t, "%v", in.err)
		}
		t.Fatal(in.err)
	}
	return in.dir
}

// nodeDriver is `node script args…` in e2e/ with the browser described in
// its environment, in a process group of its own: on cancel the whole group
// (node, and the Xvfb and WebKitWebDriver it starts) is told to stop, then
// killed.
func nodeDriver(ctx context.Context, b browserSpec, script string, args ...string) *exec.Cmd {
	_, file, _, _ := runtime.Caller(0)
	spec, _ := json.Marshal(b)
	cmd := exec.CommandContext(ctx, "node", append([]string{script}, args...)...)
	cmd.Dir = filepath.Dir(file)
	cmd.Env = append(os.Environ(), "ACAMBIENT_E2E_BROWSER="+string(spec))
	ownGroup(cmd)
	cmd.WaitDelay = 10 * time.Second
	return cmd
}
