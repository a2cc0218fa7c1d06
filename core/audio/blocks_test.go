package audio

import (
	"math/rand/v2"
	"slices"
	"testing"

	"acambient/core/samples"
)

// The decoders write into the blocks of core/samples (samples.BlockLen
// samples each). These tests hold waves whose lengths fall before, on and
// past a block edge, and span several blocks.

// TestLinearAcrossBlockEdges: 16-bit PCM of every such length decodes to
// the samples a flat conversion gives.
func TestLinearAcrossBlockEdges(t *testing.T) {
	for _, ch := range []int{1, 2} {
		bf := samples.BlockLen / ch
		for _, frames := range []int{0, 1, bf - 1, bf, bf + 1, 3*bf + 5} {
			v := make([]int, frames*ch)
			want := make([]float32, len(v))
			for i := range v {
				v[i] = (i*7919)%65536 - 32768
				want[i] = float32(v[i]) / 32768
			}
			p, err := Decode(wave(header(1, uint16(ch), 22050, uint16(2*ch), 16), le16(v...)))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.Samples.Flat(), want) || p.Frames() != frames {
				t.Errorf("%d ch, %d frames: decoded %d frames, samples differ from the flat conversion", ch, frames, p.Frames())
			}
		}
	}
}

// TestADPCMAcrossBlockEdges: every ADPCM block starts afresh from its
// header, so a wave of many blocks, its samples spanning several sample
// blocks, decodes to the concatenation of its codec blocks decoded one at
// a time as waves of their own (each well inside one sample block).
func TestADPCMAcrossBlockEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 1))
	for _, ch := range []int{1, 2} {
		imaAlign := 4*ch + 4*ch*16 // header, 16 groups: 129 frames a block
		msAlign := 7*ch + 64*ch    // header, 64 bytes of codes a channel: 130 frames
		for _, c := range []struct {
			name  string
			align int
			hdr   []byte
			head  func(b []byte) // writes a valid block header
		}{
			{"IMA", imaAlign, header(0x11, uint16(ch), 22050, uint16(imaAlign), 4), func(b []byte) {
				for k := range ch {
					b[4*k+2], b[4*k+3] = byte(rng.IntN(89)), 0
				}
			}},
			{"MS-ADPCM", msAlign, header(2, uint16(ch), 22050, uint16(msAlign), 4, msExtra(130)...), func(b []byte) {
				for k := range ch {
					b[k] = byte(rng.IntN(7))
					b[ch+2*k], b[ch+2*k+1] = byte(16+rng.IntN(200)), 0
				}
			}},
		} {
			blocks := 3*samples.BlockLen/(129*ch) + 2      // past three sample blocks
			data := make([]byte, blocks*c.align+c.align/2) // and a short last block
			for i := range data {
				data[i] = byte(rng.Uint32())
			}
			var want []float32
			for off := 0; off < len(data); off += c.align {
				blk := data[off:min(off+c.align, len(data))]
				c.head(blk)
			}
			for off := 0; off < len(data); off += c.align {
				one, err := Decode(wave(c.hdr, data[off:min(off+c.align, len(data))]))
				if err != nil {
					t.Fatalf("%s %d ch: block at %d: %v", c.name, ch, off, err)
				}
				want = append(want, one.Samples.Flat()...)
			}
			whole, err := Decode(wave(c.hdr, data))
			if err != nil {
				t.Fatalf("%s %d ch: %v", c.name, ch, err)
			}
			if whole.Samples.Len() < 3*samples.BlockLen || !slices.Equal(whole.Samples.Flat(), want) {
				t.Errorf("%s %d ch: %d samples; the whole wave differs from its blocks decoded one by one (%d samples)",
					c.name, ch, whole.Samples.Len(), len(want))
			}
		}
	}
}
