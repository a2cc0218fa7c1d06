package render

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"acambient/core/demo"
	"acambient/core/session"
	"acambient/datfetch/source"
)

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string // "" = fine
	}{
		{Options{Seconds: 1, Tick: 1.0 / 30, Rate: 48000}, ""},
		{Options{Seconds: 0, Tick: 0.1, Rate: 8000}, ""},
		{Options{Seconds: -1, Tick: 0.1, Rate: 48000}, "seconds -1"},
		{Options{Seconds: 1, Tick: 0, Rate: 48000}, "tick 0"},
		{Options{Seconds: 1, Tick: 0.1, Rate: 100}, "rate 100"},
		{Options{Seconds: 1, Tick: 0.1, Rate: 400000}, "rate 400000"},
	} {
		err := c.o.Check()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

// TestWAVProgressAndYield: Progress sees every block up to the total, Yield
// is called after each, and a Yield that does work of its own changes no
// byte.
func TestWAVProgressAndYield(t *testing.T) {
	w, err := demo.Build()
	if err != nil {
		t.Fatal(err)
	}
	run := func(o Options) []byte {
		walk, err := session.OpenRun(context.Background(), source.NewMemory(w.Portal), source.NewMemory(w.Cell),
			session.RunOptions{Seed: 1, Volume: 1, Player: "0xA9B5002D/120,96,22.8522"})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WAV(walk, o, &b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	o := Options{Seconds: 2, Tick: 1.0 / 30, Rate: 48000}
	plain := run(o)
	var dones []int64
	yields := 0
	o.Progress = func(done, total int64) {
		if total != 96000 {
			t.Errorf("total %d, want 96000", total)
		}
		dones = append(dones, done)
	}
	o.Yield = func() { yields++; _ = make([]byte, 1<<16) }
	paced := run(o)
	if !bytes.Equal(plain, paced) {
		t.Error("a render with Yield and Progress wrote other bytes")
	}
	if len(plain) != 44+96000*4 {
		t.Errorf("%d bytes, want %d", len(plain), 44+96000*4)
	}
	if n := len(dones); n != 24 || dones[0] != Block || dones[n-1] != 96000 || yields != n {
		t.Errorf("progress %d calls (first %v, last %v), %d yields; want 24 blocks to 96000, a yield each", n, dones[0], dones[n-1], yields)
	}
}
