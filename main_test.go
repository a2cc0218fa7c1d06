package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
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

// The tests here drive the command as a user does: the built binary,
// started with flags, talked to over HTTP, stopped with SIGTERM. It is
// built once, on first use, into a folder TestMain removes.

var binDir string

func TestMain(m *testing.M) {
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

// cmdGuard bounds how long a test waits for the binary to report what it
// was asked (a URL printed, an answer, an exit): only a hang takes so long.
const cmdGuard = 2 * time.Minute

var buildBinary = sync.OnceValues(func() (string, error) {
	path := filepath.Join(binDir, "acambient")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		gobin = "go"
	}
	if out, err := exec.Command(gobin, "build", "-o", path, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return path, nil
})

// builtBinary is the built acambient.
func builtBinary(t *testing.T) string {
	t.Helper()
	p, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// syncBuf collects a process's stderr.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// served is a running `serve`.
type served struct {
	url    string // what it printed after "open "
	stderr *syncBuf
}

// startServe starts `acambient serve -build=false args...` (no wasm build:
// the test serves what www holds), through `sh -c prefix` when prefix is
// set (a ulimit), and returns once it prints the URL it listens on. The
// test's end stops it with SIGTERM and checks it stopped cleanly.
func startServe(t *testing.T, prefix string, args ...string) *served {
	t.Helper()
	s, err := tryServe(t, prefix, args...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func tryServe(t *testing.T, prefix string, args ...string) (*served, error) {
	t.Helper()
	argv := append([]string{builtBinary(t), "serve", "-build=false"}, args...)
	var cmd *exec.Cmd
	if prefix != "" {
		cmd = exec.Command("sh", append([]string{"-c", prefix + ` && exec "$0" "$@"`}, argv...)...)
	} else {
		cmd = exec.Command(argv[0], argv[1:]...)
	}
	stderr := &syncBuf{}
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
			case <-time.After(cmdGuard):
				cmd.Process.Kill()
				t.Errorf("serve %v did not stop on SIGTERM", args)
			}
		})
		return &served{url: u, stderr: stderr}, nil
	case err := <-exited:
		return nil, fmt.Errorf("serve %v exited before printing its URL: %v\n%s", args, err, stderr)
	case <-time.After(cmdGuard):
		cmd.Process.Kill()
		return nil, fmt.Errorf("serve %v printed no URL in %v\n%s", args, cmdGuard, stderr)
	}
}

// freePort is a loopback port nothing listens on just now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
