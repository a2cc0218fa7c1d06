package mix

import (
	"testing"

	"acambient/core/ambient"
	"acambient/core/audio"
)

// BenchmarkMixer16Voices: sixteen voices always sounding (each slot
// re-played as its wave ends, a mix of mono and stereo waves at several
// rates, all already resampled), 48 kHz stereo, read in oto-sized blocks of
// 2048 frames, with the host ticking at 30 Hz. The reported "x-realtime" is
// seconds of audio made per second of CPU; the target is ≥ 200 natively
// and ≥ 30 as GOOS=js under node.
func BenchmarkMixer16Voices(b *testing.B) {
	stereo := audio.NewPCM(44100, 2, tone(44100, 220, 0.3, 2*44100).Samples.Flat())
	pcm := map[uint32]*audio.PCM{
		1: tone(22050, 440, 0.3, 22050), // 1 s
		2: tone(11025, 300, 0.3, 11025),
		3: stereo,
		4: tone(48000, 500, 0.3, 48000),
	}
	// A play on every slot every second: each wave lasts 1 s, so all 16
	// voices sound all the time.
	var script []ambient.Event
	for k := 0; k < 30*3600; k += 30 {
		for s := 0; s < numVoices; s++ {
			script = append(script, play(float64(k)*DefaultTick, s, uint32(1+s%4), -(s%12), s-8))
		}
	}
	m, err := New(newFake(pcm, script...), Options{})
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]float32, 2*2048)
	for range 48 { // two seconds: every clip resampled in full
		m.ReadFloat(buf)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(buf) * 4))
	for b.Loop() {
		m.ReadFloat(buf)
	}
	audioSeconds := float64(b.N) * 2048 / 48000
	b.ReportMetric(audioSeconds/b.Elapsed().Seconds(), "x-realtime")
}

// BenchmarkDesign: building one rate pair's filter table (done once per
// input rate and kept for the process).
func BenchmarkDesign(b *testing.B) {
	for b.Loop() {
		newResampler(22050, 48000)
	}
}

// BenchmarkFirstBlock: the block in which sixteen new 5-second waves (at
// three rates, none resampled before) start: what a burst of first plays
// costs the audio thread. Compare with 2048 frames = 42.7 ms of audio.
func BenchmarkFirstBlock(b *testing.B) {
	pcm := map[uint32]*audio.PCM{}
	var script []ambient.Event
	for s := 0; s < numVoices; s++ {
		rate := []int{22050, 11025, 44100}[s%3]
		pcm[uint32(1+s)] = tone(rate, 440, 0.3, 5*rate)
		script = append(script, play(0, s, uint32(1+s), -6, 0))
	}
	buf := make([]float32, 2*2048)
	for _, rate := range []int{22050, 11025, 44100} {
		resamplerFor(rate, DefaultRate) // tables are built once per process
	}
	for b.Loop() {
		m, _ := New(newFake(pcm, script...), Options{})
		m.ReadFloat(buf)
	}
}
