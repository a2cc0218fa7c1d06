package demo

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"acambient/core/audio"
	"acambient/core/demo/internal/synth"
)

// TestWavesSound decodes every wave and checks the levels a listener would
// notice: no clipping, one-shots near full scale, beds quiet and steady (in
// a loop of firings, joins included), every one-shot starting and ending in
// silence (no clicks). With DEMO_WAV_DIR set it also writes each as a WAV
// there, for listening and sox.
//
// The levels are the ones the synth promises, written out so that a change
// there shows here: one-shots peak at −1 dBFS (synth.CallPeak), moved by at
// most the encoding's peakTol; beds sit at −23 dBFS RMS (synth.BedRMS)
// unless their peak reached the −6 dBFS ceiling (synth.finishBed) and
// lowered them, and their level swings no more than bedSwing says.
func TestWavesSound(t *testing.T) {
	const callPeak = -1.0 // dBFS
	dir := os.Getenv("DEMO_WAV_DIR")
	period := bedPeriods(t)
	for _, s := range waves {
		w, _, err := buildWave(s)
		if err != nil {
			t.Fatal(err)
		}
		p, err := audio.Decode(w)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if p.Rate != s.rate || p.Channels != 1 {
			t.Errorf("%s: %d Hz %d ch, want %d mono", s.name, p.Rate, p.Channels, s.rate)
		}
		flat := p.Samples.Flat()
		peak, rms, clipped := levels(flat)
		if clipped > 0 {
			t.Errorf("%s: %d clipped samples", s.name, clipped)
		}
		edge := func(i int) float64 { return math.Abs(float64(flat[i])) }
		if s.enc != mp3 && (edge(0) > 0.01 || edge(len(flat)-1) > 0.01) {
			t.Errorf("%s: starts at %.3f, ends at %.3f: a click", s.name, edge(0), edge(len(flat)-1))
		}
		if per, ok := period[s.id]; ok {
			checkBed(t, s, p, per, peak, rms)
		} else {
			t.Logf("%-22s %5d Hz %5.2f s  peak %7.3f dBFS", s.name, s.rate, p.Duration(), dB(peak))
			tol, ok := peakTol[s.enc]
			if !ok {
				t.Fatalf("%s: no peakTol entry for its encoding", s.name)
			}
			if math.Abs(dB(peak)-callPeak) > tol {
				t.Errorf("%s: peak %.3f dBFS, want within %.2f dB of %.0f dBFS", s.name, dB(peak), tol, callPeak)
			}
		}
		if dir != "" {
			f, err := os.Create(filepath.Join(dir, filepath.Base(s.name)+".wav"))
			if err != nil {
				t.Fatal(err)
			}
			if err := audio.WriteWAV(f, p); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	}
}

// peakTol is how far storage may move a one-shot's peak from −1 dBFS, in
// dB: 16-bit rounding moves a −1 dBFS peak by under 0.001 dB, 8-bit by at
// most half a step of 1/128 (0.04 dB; measured 0.006), and the MP3 is lossy:
// lame's stream decodes to a peak of −1.41 dBFS, 0.41 dB off, and 1 dB is
// still "near full scale" while a wrong gain or level shows.
var peakTol = map[encoding]float64{pcm16: 0.01, pcm8: 0.05, mp3: 1}

// bedSwing bounds each bed's steadiness: the spread (loudest less quietest)
// of its 250 ms RMS levels over three firings tiled as the engine re-fires
// them, in dB. Each is today's figure (in the comment) plus 1 dB, about the
// smallest change of loudness a listener notices: the waves are seeded, so
// the figures move only when a recipe does, and a swell, dropout or bump at
// a join beyond that is a bed that sounds different. The winds and the surf
// swing by design (gusts, swells); water and the marsh hum barely move.
var bedSwing = map[uint32]float64{
	wMeadowBreeze: 6.7,  // 5.64
	wForestLeaves: 12.9, // 11.89
	wRiverFlow:    3.9,  // 2.84
	wSurf:         12.3, // 11.23
	wColdWind:     13.9, // 12.87
	wDesertWind:   6.7,  // 5.63
	wMarshHum:     4.1,  // 3.04
	wHollowWind:   8.0,  // 6.93
}

// checkBed checks a bed's level and its steadiness in a loop. The level is
// −23 dBFS, or lower when the −6 dBFS peak ceiling of finishBed's
// NormalizeRMS acted (forest leaves by 1.49 dB, cold wind by 0.52 dB today),
// but never 3 dB (half the power) under it: a bed that much quieter changes
// the balance of its set.
func checkBed(t *testing.T, s waveSpec, p *audio.PCM, period, peak, rms float64) {
	t.Helper()
	const target, ceiling = -23.0, -6.0 // dBFS
	const tol = 0.1                     // dB: 8-bit and MS-ADPCM error (measured ≤ 0.03 dB)
	lo, hi := loopSpread(p, period)
	t.Logf("%-22s %5d Hz %5.2f s  peak %7.3f dBFS  rms %6.2f dBFS  loop %5.1f..%5.1f dBFS (%.2f dB)",
		s.name, s.rate, p.Duration(), dB(peak), dB(rms), lo, hi, hi-lo)
	switch limited := math.Abs(dB(peak)-ceiling) <= tol; {
	case dB(peak) > ceiling+tol:
		t.Errorf("%s: peak %.2f dBFS, above the %.0f dBFS ceiling of a bed", s.name, dB(peak), ceiling)
	case !limited && math.Abs(dB(rms)-target) > tol, limited && (dB(rms) > target+tol || dB(rms) < target-3):
		t.Errorf("%s: RMS %.2f dBFS (peak %.2f dBFS), want %.0f dBFS, or up to 3 dB under with the peak at %.0f dBFS",
			s.name, dB(rms), dB(peak), target, ceiling)
	}
	want, ok := bedSwing[s.id]
	if !ok {
		t.Fatalf("%s: no bedSwing entry", s.name)
	}
	if hi-lo > want {
		t.Errorf("%s: 250 ms levels in a loop span %.1f..%.1f dBFS (%.2f dB), want at most %.1f dB", s.name, lo, hi, hi-lo, want)
	}
}

// bedPeriods gives each bed wave's re-fire period: the min_rate of its
// constant slot in the region's SoundDesc, built as the world builds it.
func bedPeriods(t *testing.T) map[uint32]float64 {
	t.Helper()
	length := map[uint32]float64{}
	for _, s := range waves {
		_, sec, err := buildWave(s)
		if err != nil {
			t.Fatal(err)
		}
		length[s.id] = sec
	}
	sd := soundDesc(length)
	out := map[uint32]float64{}
	for i, st := range stbs {
		for j, sl := range st.slots {
			if a := sd.STBDescs[i].AmbientSounds[j]; a.IsContinuous() {
				out[sl.variants[0].wave] = float64(a.MinRate)
			}
		}
	}
	return out
}

// loopSpread mixes three firings of a bed started every period seconds and
// returns the quietest and loudest 250 ms RMS (hop 125 ms, dBFS) between the
// first firing's fade-in and the last one's fade-out: what a listener
// standing in the bed hears, two joins included.
func loopSpread(p *audio.PCM, period float64) (lo, hi float64) {
	const firings, win = 3, 0.25
	step, fade, n := int(math.Round(period*float64(p.Rate))), int(synth.BedFade*float64(p.Rate)), int(win*float64(p.Rate))
	flat := p.Samples.Flat()
	mix := make([]float64, (firings-1)*step+len(flat))
	for k := range firings {
		for i, v := range flat {
			mix[k*step+i] += float64(v)
		}
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := fade; i+n <= len(mix)-fade; i += n / 2 {
		sq := 0.0
		for _, v := range mix[i : i+n] {
			sq += v * v
		}
		l := dB(math.Sqrt(sq / float64(n)))
		lo, hi = min(lo, l), max(hi, l)
	}
	return lo, hi
}

// levels is the peak and RMS of the samples and how many reach full scale.
func levels(x []float32) (peak, rms float64, clipped int) {
	var sq float64
	for _, v := range x {
		a := math.Abs(float64(v))
		peak = max(peak, a)
		sq += a * a
		if a >= 0.999 {
			clipped++
		}
	}
	return peak, math.Sqrt(sq / float64(len(x))), clipped
}

func dB(x float64) float64 { return 20 * math.Log10(x) }
