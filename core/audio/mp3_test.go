package audio

import (
	"os"
	"testing"

	"acambient/core/dat"
)

// The demo's MP3 asset was encoded by lame (internal/mkmp3) from 127 890
// samples of a synthesised howl at 22050 Hz, mono, 48 kbit/s MPEG-2. lame
// delays the signal by 576 + 529 samples and pads the end by at least the
// decoder's 529-sample delay, then to a whole 576-sample frame; go-mp3 trims
// nothing. So the stream is 127 890 + 1 105 + 529 samples rounded up to a
// frame: 129 600 (5.878 s), and within one frame of that whatever lame's
// rounding.
func TestDecodeMP3Asset(t *testing.T) {
	b, err := os.ReadFile(mp3Asset)
	if err != nil {
		t.Fatal(err)
	}
	h := header(dat.FormatMP3, 1, 22050, 1, 0, cat(le16(1), []byte{0, 0, 0, 0}, le16(156, 1, 1105))...)
	p, err := Decode(wave(h, b))
	if err != nil {
		t.Fatal(err)
	}
	if p.Rate != 22050 || p.Channels != 1 {
		t.Errorf("rate %d channels %d, want 22050 mono", p.Rate, p.Channels)
	}
	const want = 127890 + 1105 + 529
	if f := p.Frames(); f < want || f >= want+576 {
		t.Errorf("%d frames (%.3f s), want within the frame above %d", f, p.Duration(), want)
	}
	// The howl is loud: lame must not have produced silence.
	peak := float32(0)
	for _, s := range p.Samples {
		peak = max(peak, s, -s)
	}
	if peak < 0.5 {
		t.Errorf("peak %.3f: the howl decoded near silent", peak)
	}
	t.Logf("%d frames, %.3f s, peak %.3f", p.Frames(), p.Duration(), peak)
}
