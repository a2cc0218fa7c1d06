// Command soak is an hour in the demo page, shortened to what -minutes says:
// headless Chromium (node + playwright-core, as e2e) walks the page with
// WASD, jumps to a landmark every -jump (the page's instances then checked
// against gather's, computed natively), switches its data source every
// -switch between this server and an `export` of it on another origin (the
// page's Data source box), and moves the volume and the enable box; every
// -sample it prints what the page holds — the wasm's linear memory, the Go
// heap (the page's stats(), runtime/metrics), the JS heap, the renderer's
// RSS, the caches' bytes, records fetched, dropouts at the destination,
// console errors — and at the end a summary against the targets of issue
// 23. -faults then runs the bad networks one by one, each in a fresh page:
// offline for 10 s mid-walk (Chromium's network emulation), a server
// answering 503 with Retry-After for 20 s, a server stalling mid-wave for
// 20 s, a 20 kbit/s trickle for 20 s.
//
//	go run ./bench/soak                      # 30 minutes
//	go run ./bench/soak -minutes 8 -faults offline,503,stall,trickle
//	go run ./bench/soak -minutes 0 -faults offline
//
// A measurement, not a test (the e2e soak test asserts the behaviours): on
// a shared machine dropouts are partly the machine's, so note `uptime`.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"acambient/core/demo"
	"acambient/internal/testkit/browser"
	"acambient/internal/testkit/soak"
)

const playwrightVersion = "1.65.1" // what e2e uses

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

func run() error {
	minutes := flag.Float64("minutes", 30, "length of the soak (0: faults only)")
	jump := flag.Duration("jump", 30*time.Second, "a landmark jump every")
	sw := flag.Duration("switch", 5*time.Minute, "a switch of data source every (0: none)")
	sample := flag.Duration("sample", 30*time.Second, "a sample every")
	faults := flag.String("faults", "", "bad networks to run after the soak, comma-separated: offline,503,stall,trickle")
	seed := flag.Uint("seed", 1, "the walk's seed")
	browserCache := flag.Bool("browser-cache", false, "leave Chromium's HTTP cache on (off, the servers count every record the page's caches miss)")
	dump := flag.String("json", "", "write every line the script printed to this file")
	flag.Parse()

	up, _ := exec.Command("uptime").Output()
	fmt.Printf("soak: %.0f min; uptime: %s", *minutes, up)
	chromium, pw, err := browser.Chromium(playwrightVersion)
	if err != nil {
		return err
	}
	root, err := repoRoot()
	if err != nil {
		return err
	}
	ctx := context.Background()
	www, err := soak.Site(ctx, root)
	if err != nil {
		return fmt.Errorf("building the page: %w", err)
	}
	defer os.RemoveAll(www)
	w, err := demo.Build()
	if err != nil {
		return err
	}
	plan := soak.Plan{
		Seconds: *minutes * 60, JumpEvery: jump.Seconds(), SwitchEvery: sw.Seconds(), SampleEvery: sample.Seconds(),
		VolumeEvery: 45, EnableEvery: 150, Seed: uint32(*seed), BrowserCache: *browserCache,
	}
	if *faults != "" {
		plan.Faults = strings.Split(*faults, ",")
	}
	fmt.Println(soak.Header)
	res, err := soak.Run(ctx, soak.Options{WWW: www, World: w, Chromium: chromium, Playwright: pw, Plan: plan, Stderr: os.Stderr,
		Line: func(l soak.Line) { show(l) }})
	if res != nil && *dump != "" {
		var b strings.Builder
		for _, l := range res.Lines {
			b.Write(l.Raw)
			b.WriteByte('\n')
		}
		os.WriteFile(*dump, []byte(b.String()), 0o644)
	}
	if err != nil {
		return err
	}
	p, err := res.Parse()
	if err != nil {
		return err
	}
	for _, e := range p.Errors {
		fmt.Println("script error:", e)
	}
	if *minutes > 0 {
		summary(p, res)
	}
	for _, f := range p.Faults {
		faultReport(f, res)
	}
	up, _ = exec.Command("uptime").Output()
	fmt.Printf("uptime at the end: %s", up)
	return nil
}

// show prints a line as it arrives: a table row for a sample, a short line
// for the rest.
func show(l soak.Line) {
	switch l.Kind {
	case "sample":
		var s soak.Sample
		if json.Unmarshal(l.Raw, &s) == nil {
			fmt.Println(soak.Row(&s))
		}
	case "jump":
		var j soak.Jump
		if json.Unmarshal(l.Raw, &j) == nil && (!j.Equal || (j.Return && j.Requests > 0)) {
			ret := ""
			if j.Return {
				ret = fmt.Sprintf(" (a return after %.0f s)", *j.Since)
			}
			fmt.Printf("       jump to %s%s: instances equal gather's: %v, %d record requests %s\n", j.Name, ret, j.Equal, j.Requests, j.Diff)
		}
	case "switch":
		fmt.Printf("       switch: %s\n", l.Raw)
	case "console", "error":
		fmt.Printf("       %s: %s\n", l.Kind, l.Raw)
	case "fault":
		var f soak.Fault
		if json.Unmarshal(l.Raw, &f) == nil {
			fmt.Printf("       fault %s done\n", f.Fault)
		}
	}
}

func summary(p *soak.Parsed, res *soak.Result) {
	s := p.Summarize(res)
	if s.End == nil || s.At5 == nil {
		fmt.Println("no samples")
		return
	}
	mib := func(v float64) string { return fmt.Sprintf("%.1f MiB", v/(1<<20)) }
	js := func(x *soak.Sample) float64 {
		if x.JSHeap == nil {
			return 0
		}
		return x.JSHeap.Used
	}
	fmt.Printf("\nsummary over %.1f min (%d instances: the source switched %d times)\n", s.Minutes, s.Instances, len(p.Switches))
	fmt.Printf("%-34s %12s %12s\n", "", fmt.Sprintf("at %.1f min", s.At5.T/60), fmt.Sprintf("at %.1f min", s.End.T/60))
	row := func(name string, f func(*soak.Sample) float64) {
		fmt.Printf("%-34s %12s %12s\n", name, mib(f(s.At5)), mib(f(s.End)))
	}
	row("wasm linear memory", func(x *soak.Sample) float64 { return x.Stats.WasmMemory })
	row("Go heap live (last GC)", func(x *soak.Sample) float64 { return x.Stats.Go.Live })
	row("Go runtime total", func(x *soak.Sample) float64 { return x.Stats.Go.Total })
	row("JS heap used", js)
	row("renderer RSS", func(x *soak.Sample) float64 { return x.Renderer.RSS })
	row("held: caches in all", func(x *soak.Sample) float64 { return x.HeldBytes() })
	row("  decoded waves in use", func(x *soak.Sample) float64 { return x.Stats.Held.WaveBytes })
	row("  decoded waves kept", func(x *soak.Sample) float64 { return x.Stats.Held.KeptBytes })
	row("  record caches", func(x *soak.Sample) float64 { return x.Stats.Portal.Cached + x.Stats.Cell.Cached })
	row("  mixer's resampled waves", func(x *soak.Sample) float64 { return x.Stats.Mixer.Cached })
	fmt.Printf("%-34s %12d %12d\n", "record requests at the servers", s.At5.Requests, s.End.Requests)
	check := func(name string, v, limit float64) {
		verdict := "ok"
		if v > limit {
			verdict = "OVER"
		}
		fmt.Printf("target %-40s %6.2f (≤ %.2f) %s\n", name, v, limit, verdict)
	}
	check("wasm memory, end ÷ 5 min", s.WasmRatio, 1.2)
	check("Go live heap, peak last 5 ÷ first 5 min", s.GoLiveRatio, 1.2)
	check("held bytes, peak last 5 ÷ first 5 min", s.HeldRatio, 1.2)
	check("dropout runs a minute", s.GapsPerMinute, 1)
	fmt.Printf("dropouts: %d gaps (%d of whole 128-frame quanta), %d clicks (steps > 0.25) over %.1f min\n", s.Gaps, s.Quantum, s.Steps, s.Minutes)
	fmt.Printf("gaps by the event before them (within %.0f s; walk: none): %s\n", soak.GapWindow, gapsAfter(s.GapsAfter))
	fmt.Printf("jumps: %d, instances equal gather's after %d; returns: %d, of which %d fetched (%d record requests)\n",
		s.Jumps, s.Equal, s.Returns, s.ReturnsFetching, s.ReturnRequests)
	fmt.Printf("peaks: wasm %s, Go total %s, renderer RSS %s\n", mib(s.WasmPeak), mib(s.GoPeak), mib(s.RendererPeak))
	fmt.Printf("console errors: %d\n", len(s.ConsoleErrors))
	for _, c := range s.ConsoleErrors {
		fmt.Printf("    %.0f s %s: %s %s\n", c.T, c.Type, c.Text, c.URL)
	}
}

func faultReport(f soak.Fault, res *soak.Result) {
	fmt.Printf("\nfault %s (%.0f s): %d record requests from its start\n", f.Fault, f.Seconds, f.Requests)
	fmt.Printf("  while it lasted: voices ≥ %d, RMS %.4f over %.1f s, up to %d pending\n", f.During.MinVoices, f.During.RMS, f.During.Secs, f.During.MaxPending)
	for _, s := range f.Said {
		fmt.Printf("  load pill: %q ×%v\n", s[0], s[1])
	}
	for _, s := range f.Errors {
		fmt.Printf("  error area: %q ×%v\n", s[0], s[1])
	}
	for _, s := range f.After {
		fmt.Printf("  after: %q ×%v\n", s[0], s[1])
	}
	if f.Healed != nil {
		fmt.Printf("  healed %.1f s after the network came back (instances equal gather's where the player stands, nothing pending; %d checks); RMS after %.4f\n", *f.Healed, f.Checks, f.AfterHeal.RMS)
	} else {
		fmt.Printf("  NOT healed: %s\n", f.HealDiff)
	}
	if f.Fault == "stall" {
		stalled, again := soak.Stalled(res.Requests, f)
		fmt.Printf("  stalled answers: %d; of their waves, %d asked again and answered whole\n", stalled, again)
	}
	fmt.Printf("  final: %s\n", f.Final)
}

func repoRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(b)) == "" {
		return "", fmt.Errorf("run inside the module (go env GOMOD is empty)")
	}
	return filepath.Dir(strings.TrimSpace(string(b))), nil
}

// gapsAfter prints GapsAfter most first.
func gapsAfter(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.SortedFunc(maps.Keys(m), func(a, b string) int { return cmp.Or(m[b]-m[a], strings.Compare(a, b)) }) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
