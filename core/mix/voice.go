package mix

// voice is one slot of the pool: a clip playing at fixed gains (retail sets
// a buffer's volume and pan once, at play).
type voice struct {
	c      *clip
	pos    int64 // next frame of the clip; negative: frames still to wait
	gl, gr float32
	active bool

	// A tail (a voice cut early) ramps fadeGain down by fadeStep a frame
	// for fade frames.
	fade     int
	fadeGain float32
	fadeStep float32
}

// mix adds the voice's next len(buf)/2 frames into buf (interleaved
// stereo). A mono clip feeds both channels at full level, as a DirectSound
// buffer panned to the centre does; a stereo one keeps its channels.
func (v *voice) mix(buf []float32) {
	if !v.active {
		return
	}
	frames := int64(len(buf) / 2)
	i0 := int64(0)
	if v.pos < 0 {
		if -v.pos >= frames {
			v.pos += frames
			return
		}
		i0, v.pos = -v.pos, 0
	}
	n := min(frames-i0, int64(v.c.frames)-v.pos)
	if v.fade > 0 {
		n = min(n, int64(v.fade))
	}
	v.c.fill(int(v.pos + n))
	out := buf[2*i0 : 2*(i0+n)]
	ch := v.c.ch
	// The clip's samples lie in blocks (core/samples): each pass mixes the
	// frames up to the next block edge, a block holding whole frames.
	for len(out) > 0 {
		src := v.c.data.Span(int(v.pos)*ch, len(out)/2*ch)
		m := len(src) / ch
		if m == 0 {
			break // not reached: fill computed every frame read here
		}
		o := out[:2*m]
		switch {
		case v.fade > 0:
			v.fadeGain = mixFading(o, src, ch, v.gl, v.gr, v.fadeGain, v.fadeStep)
		case ch == 1:
			mixMono(o, src, v.gl, v.gr)
		default:
			mixStereo(o, src, v.gl, v.gr)
		}
		out = out[2*m:]
		v.pos += int64(m)
	}
	if v.fade > 0 {
		v.fade -= int(n)
		if v.fade == 0 {
			v.active = false
		}
	}
	if v.pos >= int64(v.c.frames) {
		v.active = false
	}
}

// mixMono adds the frames of mono src to out, len(out) = 2·len(src).
func mixMono(out, src []float32, gl, gr float32) {
	out = out[:2*len(src)]
	for i, s := range src {
		o := out[2*i : 2*i+2 : 2*i+2] // one bounds check for the pair
		o[0] += s * gl
		o[1] += s * gr
	}
}

// mixStereo adds the frames of stereo src to out, len(out) = len(src).
func mixStereo(out, src []float32, gl, gr float32) {
	out = out[:len(src)]
	for i := 0; i+1 < len(src); i += 2 {
		o, s := out[i:i+2:i+2], src[i:i+2:i+2]
		o[0] += s[0] * gl
		o[1] += s[1] * gr
	}
}

// mixFading adds src's frames (ch channels) to out, the gain g falling by
// step a frame to no lower than 0, and returns the gain reached.
func mixFading(out, src []float32, ch int, gl, gr, g, step float32) float32 {
	for i := 0; i < len(out); i += 2 {
		g -= step
		if g < 0 {
			g = 0
		}
		a := src[(i/2)*ch]
		b := src[(i/2)*ch+ch-1]
		out[i] += a * gl * g
		out[i+1] += b * gr * g
	}
	return g
}
