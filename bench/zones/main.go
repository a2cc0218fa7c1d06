// Command zones measures the zones command on a whole world: 255×255
// landblocks (2040×2040 land cells) of internal/testkit/synthworld's synthetic
// Dereth, from local dats, on one core. It writes the dats (18 MB; kept in
// -dats for the next run), runs the binary under `taskset -c 0` with
// GOMAXPROCS=1, and reports wall and CPU seconds and the peak resident size
// (the child's ru_maxrss), with the load average around the run: the
// machine may be shared.
//
//	go build -o /tmp/acambient . && go run ./bench/zones -bin /tmp/acambient
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"acambient/internal/testkit/synthworld"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "zones bench:", err)
		os.Exit(1)
	}
}

func run() error {
	bin := flag.String("bin", "", "the acambient binary to measure (required)")
	dats := flag.String("dats", filepath.Join(os.TempDir(), "acambient-synthworld"), "folder of the synthetic dats (written when missing)")
	runs := flag.Int("n", 3, "runs")
	write := flag.Bool("write", false, "only write the dats (the measuring process runs this in a child)")
	flag.Parse()
	if *write {
		if err := os.MkdirAll(*dats, 0o755); err != nil {
			return err
		}
		return synthworld.Write(*dats)
	}
	if *bin == "" || *runs < 1 {
		return errors.New("want -bin and -n ≥ 1")
	}
	if _, err := os.Stat(filepath.Join(*dats, "client_cell_1.dat")); err != nil {
		// In a child: Go starts children with vfork, so a child's ru_maxrss
		// starts at its parent's resident size, and the generator's 16 MB of
		// records would count against the zones run.
		self, err := os.Executable()
		if err != nil {
			return err
		}
		t := time.Now()
		gen := exec.Command(self, "-write", "-dats", *dats)
		gen.Stdout, gen.Stderr = os.Stdout, os.Stderr
		if err := gen.Run(); err != nil {
			return fmt.Errorf("writing the synthetic world: %w", err)
		}
		fmt.Printf("wrote the synthetic world to %s in %.1f s\n", *dats, time.Since(t).Seconds())
	}
	out, err := os.MkdirTemp("", "acambient-zones-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)
	args := []string{"-c", "0", *bin, "zones", "-dats", *dats, "-out", out}
	if _, err := exec.LookPath("taskset"); err != nil {
		return errors.New("taskset not found (util-linux)")
	}
	for i := range *runs {
		before := loadavg()
		cmd := exec.Command("taskset", args...)
		cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
		cmd.Stderr = os.Stderr
		t := time.Now()
		stdout, err := cmd.Output()
		wall := time.Since(t)
		if err != nil {
			return fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		st, _ := os.Stat(filepath.Join(out, "zones.png"))
		fmt.Printf("run %d: wall %.2f s, cpu %.2f s, peak RSS %.1f MiB, zones.png %d bytes; load %s → %s\n  %s",
			i+1, wall.Seconds(), cpu.Seconds(), float64(ru.Maxrss)/1024, st.Size(), before, loadavg(), stdout)
	}
	return nil
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
