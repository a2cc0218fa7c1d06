// Command harden reproduces issue 8's memory attacks against a `serve`
// binary on loopback and reports its peak RSS (VmHWM, Linux):
//
//	a  a portal record whose size field claims 536 MB (bit 29 set), in a
//	   dat padded (sparsely) to 1 GiB so the claim fits the file
//	b  a 64 MiB zlib bomb: a 65 KB record that declares and inflates to
//	   64 MiB, served with -cache 0
//	c  a 31 MB www file, cold, asked for with Accept-Encoding: gzip
//	d  a 30 MiB compressed record (under the cap), -cache 0: one read shared
//	e  n different 30 MiB compressed records, -cache 0: the read budget
//
// Each case starts a fresh server and sends -n concurrent requests. The
// server runs under `ulimit -v` (-maxmem) so that a vulnerable binary dies
// alone rather than take the shared machine with it.
//
//	go build -o /tmp/acambient . && go run ./bench/harden -bin /tmp/acambient
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"acambient/core/demo"
	"acambient/datfetch/datfile"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "harden:", err)
		os.Exit(1)
	}
}

func run() error {
	bin := flag.String("bin", "", "the acambient binary to measure (required)")
	n := flag.Int("n", 50, "concurrent requests per case")
	cases := flag.String("cases", "abc", "which cases to run")
	maxMem := flag.Int64("maxmem", 6<<10, "MiB of address space the server may reserve (ulimit -v)")
	timeout := flag.Duration("timeout", 2*time.Minute, "time allowed per case")
	flag.Parse()
	if *bin == "" || *n < 1 || *n > 500 || *timeout <= 0 || *timeout > 10*time.Minute {
		return errors.New("want -bin, 1 ≤ -n ≤ 500 and 0 < -timeout ≤ 10m")
	}
	dir, err := os.MkdirTemp("", "acambient-harden-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fx, err := fixtures(dir)
	if err != nil {
		return err
	}
	one := func(p string) func(int) string { return func(int) string { return p } }
	for _, c := range []struct {
		key, name string
		args      []string
		path      func(i int) string
	}{
		{"a", "record claiming 536 MB", []string{"-portal", fx.sizePortal, "-cell", fx.cell}, one(fmt.Sprintf("/files/0x%08X", fx.sizeID))},
		{"b", "64 MiB zlib bomb, -cache 0", []string{"-portal", fx.bombPortal, "-cell", fx.cell, "-cache", "0"}, one(fmt.Sprintf("/files/0x%08X", bombID))},
		{"c", "31 MB www file, cold", []string{"-portal", fx.portal, "-cell", fx.cell}, one("/big.wasm")},
		{"d", "one 30 MiB zlib record", []string{"-portal", fx.bombPortal, "-cell", fx.cell, "-cache", "0"}, one(fmt.Sprintf("/files/0x%08X", bigIDs))},
		{"e", "n different 30 MiB records", []string{"-portal", fx.bombPortal, "-cell", fx.cell, "-cache", "0"}, func(i int) string { return fmt.Sprintf("/files/0x%08X", bigIDs+uint32(i%bigCount)) }},
	} {
		if !strings.Contains(*cases, c.key) {
			continue
		}
		args := append([]string{"serve", "-addr", "127.0.0.1:0", "-build=false", "-www", fx.www}, c.args...)
		r, err := measure(*bin, args, c.path, *n, *maxMem, *timeout)
		if err != nil {
			return fmt.Errorf("case %s: %w", c.key, err)
		}
		fmt.Printf("%s  %-28s peak RSS %6.0f MiB  %s  %v  %s\n", c.key, c.name, float64(r.peakKB)/1024, r.statuses, r.elapsed.Round(time.Millisecond), r.fate)
	}
	return nil
}

const (
	bombID   = 0x0A00B0B0
	bigIDs   = 0x0A00C000 // bigCount records of 30 MiB from here
	bigCount = 50
	bigSize  = 30 << 20
)

type fixtureFiles struct {
	portal, cell, sizePortal, bombPortal, www string
	sizeID                                    uint32
}

// fixtures writes the demo world's dats, the two hostile portals and the
// www folder.
func fixtures(dir string) (fixtureFiles, error) {
	fx := fixtureFiles{
		portal: filepath.Join(dir, "portal.dat"), cell: filepath.Join(dir, "cell.dat"),
		sizePortal: filepath.Join(dir, "size.dat"), bombPortal: filepath.Join(dir, "bomb.dat"),
		www: filepath.Join(dir, "www"),
	}
	w, err := demo.Build()
	if err != nil {
		return fx, err
	}
	portal, err := encode(datfile.WriteOptions{DataSet: datfile.Portal}, w.Portal)
	if err != nil {
		return fx, err
	}
	cell, err := encode(datfile.WriteOptions{DataSet: datfile.Cell}, w.Cell)
	if err != nil {
		return fx, err
	}
	if err := os.WriteFile(fx.portal, portal, 0o644); err != nil {
		return fx, err
	}
	if err := os.WriteFile(fx.cell, cell, 0o644); err != nil {
		return fx, err
	}
	if fx.sizeID, err = writeSizeClaim(fx.sizePortal, portal); err != nil {
		return fx, err
	}

	// b: the bomb, zeros after its DID, compressed by the writer.
	recs := map[uint32][]byte{}
	for id, b := range w.Portal {
		recs[id] = b
	}
	bomb := make([]byte, 64<<20)
	binary.LittleEndian.PutUint32(bomb, bombID)
	recs[bombID] = bomb
	// The 30 MiB records overlap in one buffer, each starting with its DID
	// (which the one before holds as data): 30 MiB, not 1.5 GB, to build.
	shared := make([]byte, bigSize+4*bigCount)
	for i := range bigCount {
		binary.LittleEndian.PutUint32(shared[4*i:], bigIDs+uint32(i))
	}
	for i := range bigCount {
		recs[bigIDs+uint32(i)] = shared[4*i : 4*i+bigSize]
	}
	compress := func(id uint32, _ []byte) bool { return id == bombID || id >= bigIDs && id < bigIDs+bigCount }
	b, err := encode(datfile.WriteOptions{DataSet: datfile.Portal, Compress: compress}, recs)
	if err != nil {
		return fx, err
	}
	if err := os.WriteFile(fx.bombPortal, b, 0o644); err != nil {
		return fx, err
	}

	// c: 31 MB of wasm-like bytes that gzip to about a third.
	if err := os.Mkdir(fx.www, 0o755); err != nil {
		return fx, err
	}
	big := make([]byte, 31_000_000)
	x := uint32(1)
	for i := range big {
		if i%3 == 0 {
			x = x*1664525 + 1013904223
		}
		big[i] = byte(x>>(8*(i%3))) & 0x3F
	}
	return fx, os.WriteFile(filepath.Join(fx.www, "big.wasm"), big, 0o644)
}

func encode(opt datfile.WriteOptions, recs map[uint32][]byte) ([]byte, error) {
	var buf bytes.Buffer
	err := datfile.WriteDatOptions(&buf, opt, recs)
	return buf.Bytes(), err
}

// writeSizeClaim writes portal with the region's size field given bit 29
// (536 870 912 more bytes) and file_size set to 1 GiB, the file padded to
// match with a hole: the "demo portal padded to 1 GiB".
func writeSizeClaim(path string, portal []byte) (uint32, error) {
	d, err := datfile.NewDat(bytes.NewReader(portal), int64(len(portal)))
	if err != nil {
		return 0, err
	}
	const id = 0x13000000
	e, err := d.Lookup(id)
	if err != nil {
		return 0, err
	}
	var key [12]byte // id, offset, size: the entry's bytes 4..16
	binary.LittleEndian.PutUint32(key[0:], e.ID)
	binary.LittleEndian.PutUint32(key[4:], e.Offset)
	binary.LittleEndian.PutUint32(key[8:], e.Size)
	i := bytes.Index(portal, key[:])
	if i < 0 {
		return 0, errors.New("the region's entry straddles a block boundary")
	}
	b := bytes.Clone(portal)
	binary.LittleEndian.PutUint32(b[i+8:], e.Size|1<<29)
	const size = 1 << 30
	binary.LittleEndian.PutUint32(b[0x148:], size)
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return 0, err
	}
	return id, f.Close()
}

type result struct {
	peakKB   int64
	statuses string
	elapsed  time.Duration
	fate     string
}

// measure starts the server, fires n concurrent GETs of path(i), waits for them
// all, reads the server's VmHWM and stops it.
func measure(bin string, args []string, path func(int) string, n int, maxMemMiB int64, timeout time.Duration) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + a + "'"
	}
	cmd := exec.Command("sh", "-c", fmt.Sprintf("ulimit -v %d && exec '%s' %s", maxMemMiB<<10, bin, strings.Join(quoted, " ")))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return result{}, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	exited := make(chan error, 1)
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
		}
	}()
	sc := bufio.NewScanner(out)
	base := ""
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "open "); ok {
			base = strings.TrimSuffix(u, "/")
			break
		}
	}
	go func() { io.Copy(io.Discard, out); exited <- cmd.Wait() }()
	if base == "" {
		return result{}, fmt.Errorf("server printed no address: %s", stderr.String())
	}

	peak := int64(0)
	var mu sync.Mutex
	stopPoll := make(chan struct{})
	go func() { // VmHWM is lost when the process dies: keep the last reading
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if kb, err := vmHWM(cmd.Process.Pid); err == nil {
				mu.Lock()
				peak = max(peak, kb)
				mu.Unlock()
			}
			select {
			case <-stopPoll:
				return
			case <-t.C:
			}
		}
	}()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, DisableCompression: true}}
	counts := map[string]int{}
	start := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			status := "error"
			req, _ := http.NewRequestWithContext(ctx, "GET", base+path(i), nil)
			req.Header.Set("Accept-Encoding", "gzip")
			if resp, err := client.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				status = strconv.Itoa(resp.StatusCode)
			}
			mu.Lock()
			counts[status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	time.Sleep(50 * time.Millisecond)
	close(stopPoll)
	fate := "server alive"
	select {
	case err := <-exited:
		fate = fmt.Sprintf("SERVER DIED (%v): %s", err, lastLine(stderr.String()))
		exited <- err
	default:
		if kb, err := vmHWM(cmd.Process.Pid); err == nil {
			peak = max(peak, kb)
		}
	}
	var parts []string
	for s, c := range counts {
		parts = append(parts, fmt.Sprintf("%d×%s", c, s))
	}
	return result{peakKB: peak, statuses: strings.Join(parts, " "), elapsed: elapsed, fate: fate}, nil
}

// vmHWM is the process's peak resident set, KiB, from /proc (Linux).
func vmHWM(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmHWM")
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		if strings.Contains(l, "fatal error") || strings.Contains(l, "out of memory") {
			return l
		}
	}
	return lines[len(lines)-1]
}
