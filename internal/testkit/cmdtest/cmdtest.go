// Package cmdtest drives the acambient command in tests as a user does:
// the built binary, started with flags, talked to over HTTP, stopped with
// SIGTERM; or a command line run in process with its output captured.
package cmdtest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The binary is built once per test process, on first use, into a folder
// Main removes.

var binDir string

// Main runs m's tests, as a package's TestMain, and removes the built
// binary after them.
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "acambient-cmd-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Guard bounds how long a test waits for the binary to report what it
// was asked (a URL printed, an answer, an exit): only a hang takes so long.
const Guard = 2 * time.Minute

var buildBinary = sync.OnceValues(func() (string, error) {
	path := filepath.Join(binDir, "acambient")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		gobin = "go"
	}
	if out, err := exec.Command(gobin, "build", "-o", path, "acambient").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return path, nil
})

// Binary is the built acambient (the module's root package).
func Binary(t *testing.T) string {
	t.Helper()
	p, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Buffer collects what a process or a server's goroutines write (its
// stderr, a log), safe for concurrent writes.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Served is a running `serve`.
type Served struct {
	URL    string // what it printed after "open "
	Stderr *Buffer
}

// StartServe starts `acambient serve -build=false args...` (no wasm build:
// the test serves what www holds), through `sh -c prefix` when prefix is
// set (a ulimit), and returns once it prints the URL it listens on. The
// test's end stops it with SIGTERM and checks it stopped cleanly.
func StartServe(t *testing.T, prefix string, args ...string) *Served {
	t.Helper()
	s, err := TryServe(t, prefix, args...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TryServe is StartServe that returns, rather than fails on, a serve that
// printed no URL.
func TryServe(t *testing.T, prefix string, args ...string) (*Served, error) {
	t.Helper()
	return TryCommand(t, prefix, append([]string{"serve", "-build=false"}, args...)...)
}

// TryCommand runs the binary with args as given (no command: `go run .`'s
// default, serve) and waits for the URL it prints, as TryServe does.
func TryCommand(t *testing.T, prefix string, args ...string) (*Served, error) {
	t.Helper()
	argv := append([]string{Binary(t)}, args...)
	var cmd *exec.Cmd
	if prefix != "" {
		cmd = exec.Command("sh", append([]string{"-c", prefix + ` && exec "$0" "$@"`}, argv...)...)
	} else {
		cmd = exec.Command(argv[0], argv[1:]...)
	}
	stderr := &Buffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	printed := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "open "); ok {
				printed <- u
			}
		}
		io.Copy(io.Discard, out)
		exited <- cmd.Wait()
	}()
	select {
	case u := <-printed:
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case err := <-exited:
				if err != nil || !strings.Contains(stderr.String(), "stopped") {
					t.Errorf("serve %v after SIGTERM: %v\n%s", args, err, stderr)
				}
			case <-time.After(Guard):
				cmd.Process.Kill()
				t.Errorf("serve %v did not stop on SIGTERM", args)
			}
		})
		return &Served{URL: u, Stderr: stderr}, nil
	case err := <-exited:
		return nil, fmt.Errorf("serve %v exited before printing its URL: %v\n%s", args, err, stderr)
	case <-time.After(Guard):
		cmd.Process.Kill()
		return nil, fmt.Errorf("serve %v printed no URL in %v\n%s", args, Guard, stderr)
	}
}

// FreePort is a loopback port nothing listens on just now.
func FreePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

var stdioMu sync.Mutex

// Run runs a command line in process, as `go run . args...` would, through
// main (the command's dispatch), and returns its stdout, stderr and exit
// code. Runs are one at a time: they swap os.Stdout and os.Stderr.
func Run(t *testing.T, main func(args []string) int, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	stdioMu.Lock()
	defer stdioMu.Unlock()
	oldOut, oldErr := os.Stdout, os.Stderr
	rOut, wOut, _ := os.Pipe()
	rErr, wErr, _ := os.Pipe()
	os.Stdout, os.Stderr = wOut, wErr
	var bo, be bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { io.Copy(&bo, rOut); wg.Done() }()
	go func() { io.Copy(&be, rErr); wg.Done() }()
	code = main(args)
	wOut.Close()
	wErr.Close()
	wg.Wait()
	os.Stdout, os.Stderr = oldOut, oldErr
	return bo.String(), be.String(), code
}

// GetURL GETs url (or sends method to it with the header pairs) and returns
// the answer with its body read.
func GetURL(t *testing.T, method, url string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := (&http.Client{Timeout: Guard}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return resp, b
}
