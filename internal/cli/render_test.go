package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"acambient/core/ambient"
	"acambient/core/demo"
	"acambient/core/session"
)

// wavStats reads a 16-bit stereo WAV that render wrote: its header fields,
// the RMS and peak of its samples in dBFS.
type wavStats struct {
	channels, rate, bits int
	frames               int
	rms, peak            float64 // dBFS; −Inf for silence
	fullScale            int     // samples at ±32767/−32768
}

func readWAV(t *testing.T, b []byte) wavStats {
	t.Helper()
	if len(b) < 44 || string(b[0:4]) != "RIFF" || string(b[8:16]) != "WAVEfmt " || string(b[36:40]) != "data" {
		t.Fatalf("not a canonical WAV (%d bytes)", len(b))
	}
	dataLen := int(binary.LittleEndian.Uint32(b[40:]))
	if dataLen != len(b)-44 || int(binary.LittleEndian.Uint32(b[4:])) != 36+dataLen {
		t.Fatalf("header says %d data bytes, file has %d", dataLen, len(b)-44)
	}
	st := wavStats{
		channels: int(binary.LittleEndian.Uint16(b[22:])),
		rate:     int(binary.LittleEndian.Uint32(b[24:])),
		bits:     int(binary.LittleEndian.Uint16(b[34:])),
	}
	st.frames = dataLen / 4
	var sum float64
	var peak int
	for i := 44; i+1 < len(b); i += 2 {
		s := int(int16(binary.LittleEndian.Uint16(b[i:])))
		sum += float64(s * s)
		peak = max(peak, s, -s)
		if s >= 32767 || s <= -32768 {
			st.fullScale++
		}
	}
	st.rms = 20 * math.Log10(math.Sqrt(sum/float64(dataLen/2))/32768)
	st.peak = 20 * math.Log10(float64(peak)/32768)
	return st
}

// TestRenderStreamsDeterministicWAV: `-o -` writes a 16-bit stereo WAV of
// round(seconds·rate) frames to stdout; the same seed gives the same bytes,
// another seed others; -o FILE writes the same bytes as -o -.
func TestRenderStreamsDeterministicWAV(t *testing.T) {
	args := []string{"render", "-player", posOf(landmark(t, "forest")), "-seconds", "30.5", "-seed", "42", "-rate", "22050", "-o", "-"}
	a, errs, code := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("render: exit %d: %s", code, errs)
	}
	st := readWAV(t, []byte(a))
	if st.channels != 2 || st.rate != 22050 || st.bits != 16 || st.frames != 672525 {
		t.Errorf("WAV %+v, want 2 channels, 22050 Hz, 16 bits, 672525 frames", st)
	}
	if b, _, _ := runCmd(t, args...); a != b {
		t.Error("same seed, different WAV bytes")
	}
	args[6] = "43"
	if c, _, _ := runCmd(t, args...); c == a {
		t.Error("different seeds, the same WAV")
	}
	args[6] = "42"
	path := filepath.Join(t.TempDir(), "forest.wav")
	args[len(args)-1] = path
	if _, errs, code := runCmd(t, args...); code != 0 {
		t.Fatalf("render -o FILE: exit %d: %s", code, errs)
	}
	if f, err := os.ReadFile(path); err != nil || string(f) != a {
		t.Errorf("-o FILE wrote %d bytes differing from -o -'s %d (%v)", len(f), len(a), err)
	}
}

// TestRenderLandmarks: the demo world renders audible at every named
// landmark (−35…−12 dBFS RMS over 20 s), never reaches full scale, and the
// cellar (which sees nothing outside) is silent.
func TestRenderLandmarks(t *testing.T) {
	for _, l := range demo.Landmarks {
		out, errs, code := runCmd(t, "render", "-player", posOf(l), "-seconds", "20", "-seed", "5", "-o", "-")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", l.Name, code, errs)
		}
		st := readWAV(t, []byte(out))
		t.Logf("%-10s RMS %6.1f dBFS, peak %6.1f dBFS", l.Name, st.rms, st.peak)
		if st.fullScale > 0 {
			t.Errorf("%s: %d samples at full scale", l.Name, st.fullScale)
		}
		if l.Name == "cellar" {
			if !math.IsInf(st.peak, -1) {
				t.Errorf("cellar: peak %.1f dBFS, want silence", st.peak)
			}
			continue
		}
		if !(st.rms >= -35 && st.rms <= -12) {
			t.Errorf("%s: RMS %.1f dBFS, want −35…−12", l.Name, st.rms)
		}
	}
}

// TestRenderAgreesWithTrace: over a run at the river, a walk to the meadow
// included, every event render's mixer saw is the event trace prints, in
// the same order, and the other way round for every tick render reached.
func TestRenderAgreesWithTrace(t *testing.T) {
	seconds := 600.0
	if testing.Short() {
		seconds = 60
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "walk.jsonl")
	river, meadow := landmark(t, "river"), landmark(t, "meadow")
	os.WriteFile(path, []byte(`{"t": 0, "player": "`+posOf(river)+`"}`+"\n"+
		`{"t": `+ftoa(seconds/2)+`, "player": "`+posOf(meadow)+`", "camera": "`+posOf(meadow)+`/90"}`+"\n"), 0o644)
	walk := func() *session.Walk {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		o := addRunFlags(fs)
		if err := fs.Parse([]string{"-path", path, "-seed", "9"}); err != nil {
			t.Fatal(err)
		}
		w, closeData, err := o.open(context.Background(), fs)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(closeData)
		return w
	}
	var traced bytes.Buffer
	if err := runTrace(walk(), seconds, 1.0/30, &traced); err != nil {
		t.Fatal(err)
	}
	var rendered []string
	plays := 0
	onEvents := func(_ float64, evs []ambient.Event) {
		for _, ev := range evs {
			b, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			rendered = append(rendered, string(b))
			if ev.Kind == ambient.KindPlay {
				plays++
			}
		}
	}
	err := runRender(walk(), renderOptions{seconds: seconds, tick: 1.0 / 30, rate: 48000, onEvents: onEvents}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(traced.String()), "\n")
	// Trace's last tick is at t = seconds; render's last starts before its
	// last frame. Compare every event before t = seconds.
	var want []string
	for _, l := range lines {
		var ev struct{ T float64 }
		json.Unmarshal([]byte(l), &ev)
		if ev.T < seconds {
			want = append(want, l)
		}
	}
	if float64(plays) < seconds/6 { // the river and meadow play every few seconds
		t.Fatalf("only %d plays in %v s", plays, seconds)
	}
	if len(rendered) != len(want) {
		t.Fatalf("render saw %d events, trace printed %d before t=%v", len(rendered), len(want), seconds)
	}
	for i := range want {
		if rendered[i] != want[i] {
			t.Fatalf("event %d: render %s, trace %s", i, rendered[i], want[i])
		}
	}
}

func TestRenderFlags(t *testing.T) {
	pos := posOf(landmark(t, "meadow"))
	for _, tc := range []struct {
		args []string
		want string // the line stderr must hold
	}{
		{[]string{"render", "-player", pos}, "render: want -o FILE.wav (or -o - for stdout)"},
		{[]string{"render", "-player", pos, "-o", "-", "-rate", "100"}, "render: -rate 100: want 8000..384000 Hz"},
		{[]string{"render", "-player", pos, "-o", "-", "-tick", "0"}, "render: -tick 0: want seconds > 0"},
		{[]string{"render", "-player", pos, "-o", "-", "-seconds", "-1"}, "render: -seconds -1: want ≥ 0"},
		{[]string{"render", "-player", pos, "-o", "-", "-volume", "1.5"}, "render: -volume 1.5: want 0..1"},
		{[]string{"render", "-player", pos, "-o", "-", "-seed", "4294967296"}, "render: -seed 4294967296: want < 2^32"},
		{[]string{"render", "-o", "-"}, "render: want -player POS (or a -path line at t=0 with a player)"},
		{[]string{"render", "-player", pos, "-o", "/nonexistent/dir/x.wav"}, "render: open /nonexistent/dir/x.wav: no such file or directory"},
		{[]string{"render", "-player", "0xA9B5002D/1,2", "-o", "-"}, `render: -player: position "0xA9B5002D/1,2": want three numbers x,y,z, got 2`},
	} {
		args := tc.args
		if _, errs, code := runCmd(t, args...); code == 0 || !slices.Contains(strings.Split(errs, "\n"), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error, the line %q", args, code, errs, tc.want)
		}
	}
}

// TestRenderProgress: a long render reports on stderr as it goes.
func TestRenderProgress(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	o := addRunFlags(fs)
	fs.Parse([]string{"-player", posOf(landmark(t, "river"))})
	w, closeData, err := o.open(context.Background(), fs)
	if err != nil {
		t.Fatal(err)
	}
	defer closeData()
	var progress bytes.Buffer
	err = runRender(w, renderOptions{seconds: 5, tick: 1.0 / 30, rate: 48000, progress: &progress, every: time.Nanosecond}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	if len(lines) < 10 || !strings.HasPrefix(lines[0], "render: ") || !strings.Contains(lines[len(lines)-1], "of 5 s (100%)") {
		t.Errorf("progress lines: %d, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
}
