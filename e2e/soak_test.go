package e2e

// The long session and the bad networks in the page (issue 23), through the
// harness bench/soak measures with (internal/testkit/soak): the same servers, the
// same browser script, shortened. These assert behaviours; the figures
// (memory over 30 minutes, how fast the page heals, dropouts) are
// bench/soak's to report.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"acambient/internal/testkit/soak"
)

// runSoak runs the harness through plan in the built page, in Chromium
// (the faults use its network emulation), beside the package's other
// browser tests: each waits on real time.
func runSoak(t *testing.T, plan soak.Plan) (*soak.Result, *soak.Parsed) {
	t.Helper()
	b := needBrowser(t, "chromium")
	www, w := site(t)
	t.Parallel()
	var stderr strings.Builder
	res, err := soak.Run(context.Background(), soak.Options{WWW: www, World: w, Chromium: b.Executable,
		Playwright: filepath.Dir(b.Modules), Plan: plan, Stderr: &stderr})
	if err != nil {
		t.Fatalf("soak: %v\n%s", err, stderr.String())
	}
	p, err := res.Parse()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range p.Errors {
		t.Errorf("the script failed: %s", e)
	}
	if !p.Ended {
		t.Fatalf("the script did not end\n%s", stderr.String())
	}
	return res, p
}

// TestPageSoakShort is bench/soak's session for two minutes: WASD walks, a
// landmark jump every 20 s (a return to the first at the fourth), a switch
// to the export on another origin at 100 s, volume and enable toggles. After
// every jump the page's instances are gather's there; the return fetches
// nothing over the network (the page kept what it decoded); the console
// stays clean; sound reaches the destination to the end; and of the two
// instances the page made, the disposed one is collected.
func TestPageSoakShort(t *testing.T) {
	if testing.Short() {
		t.Skip("two minutes in the browser")
	}
	res, p := runSoak(t, soak.Plan{Seconds: 120, JumpEvery: 20, SwitchEvery: 100, SampleEvery: 20,
		VolumeEvery: 15, EnableEvery: 50, Seed: 1})
	s := p.Summarize(res)
	if s.End == nil {
		t.Fatal("no samples")
	}
	if s.Jumps < 4 || s.Equal != s.Jumps {
		t.Errorf("%d jumps, %d with gather's instances; want at least 4, all", s.Jumps, s.Equal)
	}
	for _, j := range p.Jumps {
		if !j.Equal {
			t.Errorf("jump to %s at %.0f s: %s", j.Name, j.T, j.Diff)
		}
	}
	if s.Returns < 1 || s.ReturnsFetching != 0 {
		t.Errorf("%d returns, %d of them fetching (%d record requests); want at least one, none fetching",
			s.Returns, s.ReturnsFetching, s.ReturnRequests)
	}
	if len(p.Switches) != 1 || p.Switches[0].To != "export" || s.Instances != 2 {
		t.Errorf("switches %+v, %d instances; want one to the export, 2 instances", p.Switches, s.Instances)
	}
	for _, c := range s.ConsoleErrors {
		t.Errorf("console %s at %.0f s: %s %s", c.Type, c.T, c.Text, c.URL)
	}
	last := s.End
	if last.Tap.Sound == 0 || last.Voices == 0 {
		t.Errorf("at the end: %v frames of sound, %d voices; want sound", last.Tap.Sound, last.Voices)
	}
	if p.Alive != 1 {
		t.Errorf("%d instances still in memory after collections; want 1 (the disposed one collected)", p.Alive)
	}
	// The decoded waves, in use and kept, are held in the blocks of the
	// pool stats() reports (core/samples), which made at least as many.
	pool, waves := last.Stats.Samples.Total, last.Stats.Held.WaveBytes+last.Stats.Held.KeptBytes
	if waves == 0 || pool < waves {
		t.Errorf("stats(): samples.total %.0f bytes, decoded waves held %.0f; want the pool to hold them all", pool, waves)
	}
	t.Logf("wasm %.1f MiB, Go live %.1f MiB, held %.1f MiB, sample pool %.1f MiB; %d dropout gaps over %.1f min (uptime: %s)",
		last.Stats.WasmMemory/(1<<20), last.Stats.Go.Live/(1<<20), last.HeldBytes()/(1<<20), pool/(1<<20), s.Gaps, s.Minutes, uptime())
}

// TestPageOffline: the browser goes offline (Chromium's network emulation)
// for 10 s in the middle of a walk, a jump into land the page has not
// loaded among it. What was playing goes on, the load pill says in plain
// words that nothing answers, and when the network is back the page heals
// by itself: the instances where the player stands become gather's, with
// nothing pending.
func TestPageOffline(t *testing.T) {
	f := faultCase(t, "offline")
	said(t, f, "No answer from this server: the network is down")
}

// TestPage503: the page's server answers every record 503 with a
// Retry-After of the seconds its maintenance has left, for 20 s, in the
// middle of a walk. As offline; the pill names the 503 and the wait asked,
// and the Retry-After is honoured: each record is asked at most a few times
// in the window, not at the page's own backoff (four quick attempts, then
// 1, 2, 4, 8, 16 s).
func TestPage503(t *testing.T) {
	f, res := faultCaseResult(t, "503")
	said(t, f, "This server is unavailable for now (503) and asks to wait")
	per := map[string]int{}
	for _, q := range res.Requests {
		if q.Fault == soak.Fault503 {
			per[q.Path]++
		}
	}
	if len(per) == 0 {
		t.Fatal("no record was asked for in the 503 window: the fault did not bite")
	}
	for path, n := range per {
		if n > 3 {
			t.Errorf("%s answered 503 %d times in 20 s; want ≤ 3 (the Retry-After waited out)", path, n)
		}
	}
}

func faultCase(t *testing.T, kind string) soak.Fault {
	f, _ := faultCaseResult(t, kind)
	return f
}

func faultCaseResult(t *testing.T, kind string) (soak.Fault, *soak.Result) {
	t.Helper()
	res, p := runSoak(t, soak.Plan{Faults: []string{kind}, HealTimeout: 90, Seed: 1})
	if len(p.Faults) != 1 {
		t.Fatalf("%d fault reports; want 1", len(p.Faults))
	}
	f := p.Faults[0]
	if f.Requests == 0 {
		t.Errorf("%s: no record request from the fault's start: it did not bite", kind)
	}
	if f.During.RMS < 1e-3 || f.During.Secs < f.Seconds/2 {
		t.Errorf("%s: while it lasted RMS %.4f over %.1f s at the destination; want the sound going on", kind, f.During.RMS, f.During.Secs)
	}
	if f.Healed == nil {
		t.Errorf("%s: not healed after the network came back: %s (load pill after: %v)", kind, f.HealDiff, f.After)
	} else {
		t.Logf("%s: healed %.1f s after the network came back (uptime: %s)", kind, *f.Healed, uptime())
	}
	for _, c := range p.Console {
		if c.Phase == "fault:"+kind && c.Type == "pageerror" {
			t.Errorf("%s: uncaught page error: %s", kind, c.Text)
		}
	}
	return f, res
}

// said checks that the load pill said want while the fault lasted.
func said(t *testing.T, f soak.Fault, want string) {
	t.Helper()
	for _, s := range f.Said {
		if text, _ := s[0].(string); strings.Contains(text, want) {
			return
		}
	}
	t.Errorf("%s: the load pill never said %q; it said %v", f.Fault, want, f.Said)
}

func uptime() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
