package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The npm packages the Leaflet tests install into a cache folder, besides
// the browser driver that need (e2e_test.go) installs: the map library the
// example pins, the type checker and Leaflet's types, and the bundler the
// npm package is built with (vite_test.go).
var lfPackages = map[string]string{
	"leaflet":        "1.9.4",
	"typescript":     "5.9.3",
	"@types/leaflet": "1.9.22",
	"vite":           "6.4.6",
}

func lfNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		e2eMissing(t, "node is not installed")
	}
	return node
}

var (
	lfModulesOnce sync.Once
	lfModulesDir  string
	lfModulesErr  error
)

// lfModules installs lfPackages (once per cache folder) and returns the
// node_modules folder.
func lfModules(t *testing.T) string {
	t.Helper()
	lfNode(t)
	npm, err := exec.LookPath("npm")
	if err != nil {
		e2eMissing(t, "npm is not installed")
	}
	lfModulesOnce.Do(func() { lfModulesDir, lfModulesErr = lfInstall(npm) })
	if lfModulesErr != nil {
		t.Fatal(lfModulesErr)
	}
	return lfModulesDir
}

func lfInstall(npm string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return npmInstallTo(npm, filepath.Join(cache, "acambient", "e2e-leaflet"), "acambient-e2e-leaflet", lfPackages)
}

// lfBrowser is one browser page behind leaflet_driver.mjs: a command
// bridge, where drive.mjs runs the demo page's fixed scenario.
type lfBrowser struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	mu    sync.Mutex
	stder strings.Builder
}

// lfLaunch starts the browser b describes.
func lfLaunch(t *testing.T, b browserSpec) *lfBrowser {
	t.Helper()
	cmd := nodeDriver(context.Background(), b, "leaflet_driver.mjs")
	lb := &lfBrowser{t: t, cmd: cmd}
	cmd.Stderr = &lb.stder
	var err error
	if lb.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	lb.out = bufio.NewScanner(stdout)
	lb.out.Buffer(make([]byte, 1<<20), 64<<20)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		lb.in.Close() // the driver closes the browser at the end of its input
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			killGroup(cmd)
			<-done
		}
		killGroup(cmd) // what the driver started and left
	})
	return lb
}

// call sends one command and decodes its value into out (nil: discard).
func (b *lfBrowser) call(out any, cmd map[string]any) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	line, err := json.Marshal(cmd)
	if err != nil {
		return err
	}
	if _, err := b.in.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("driver: %v; stderr:\n%s", err, b.stder.String())
	}
	if !b.out.Scan() {
		return fmt.Errorf("driver exited (%v); stderr:\n%s", b.out.Err(), b.stder.String())
	}
	var ans struct {
		OK    bool            `json:"ok"`
		Value json.RawMessage `json:"value"`
		Error string          `json:"error"`
	}
	if err := json.Unmarshal(b.out.Bytes(), &ans); err != nil {
		return fmt.Errorf("driver answer %q: %v", b.out.Text(), err)
	}
	if !ans.OK {
		return fmt.Errorf("%s: %s", cmd["op"], ans.Error)
	}
	if out != nil {
		return json.Unmarshal(ans.Value, out)
	}
	return nil
}

// do is call that fails the test on error.
func (b *lfBrowser) do(op string, kv ...any) {
	b.t.Helper()
	if err := b.call(nil, lfCmd(op, kv)); err != nil {
		b.t.Fatalf("%v\npage log:\n%s", err, strings.Join(b.logs(), "\n"))
	}
}

// eval evaluates a JavaScript expression in the page (a promise is awaited)
// into out.
func (b *lfBrowser) eval(out any, expr string) {
	b.t.Helper()
	if err := b.call(out, lfCmd("eval", []any{"expr", expr})); err != nil {
		b.t.Fatalf("%v\npage log:\n%s", err, strings.Join(b.logs(), "\n"))
	}
}

// waitFor waits until expr is truthy in the page: as long as the test's
// deadline allows (less waitForMargin to report and close the browser), and
// at least timeout. A busy machine slows the page, not the test's verdict;
// a state that never comes still fails, with the page's log.
func (b *lfBrowser) waitFor(expr string, timeout time.Duration) {
	b.t.Helper()
	b.do("waitFor", "expr", expr, "timeoutMs", waitForLimit(b.t, timeout).Milliseconds())
}

// waitForMargin is what a browser wait leaves of the test's deadline: the
// failure's report and lfLaunch's cleanup (up to 20 s for the driver).
const waitForMargin = 30 * time.Second

// waitForLimit is how long a browser wait may last: until t's deadline less
// waitForMargin, or timeout when that is longer (or there is no deadline).
func waitForLimit(t *testing.T, timeout time.Duration) time.Duration {
	if d, ok := t.Deadline(); ok {
		if left := time.Until(d) - waitForMargin; left > timeout {
			return left
		}
	}
	return timeout
}

// logs takes the page's console lines, errors and failed requests so far.
func (b *lfBrowser) logs() []string {
	var l []string
	if err := b.call(&l, map[string]any{"op": "logs"}); err != nil {
		return []string{err.Error()}
	}
	return l
}

func lfCmd(op string, kv []any) map[string]any {
	m := map[string]any{"op": op}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}
