package audio

import (
	"encoding/binary"
)

// EncodeMSADPCM encodes interleaved 16-bit samples as MS-ADPCM. It returns
// the WAVEFORMATEX header (18 bytes, then the 32 standard extra bytes:
// samples per block, 7 coefficients) and the data blocks, ready for a Wave
// record. Each block and channel uses the predictor that minimises that
// block's squared error, and the encoder runs the decoder's own arithmetic,
// so Decode reproduces exactly the samples the encoder scored.
//
// samplesPerBlock is per channel and counts the two header samples; it is
// raised to 2 if smaller, lowered to what a 65535-byte block holds if larger,
// and raised by one if the block's nibbles would not fill whole bytes. A
// final short block holds the rest; when its nibble count is odd its last
// nibble is padding, which decodes as one extra sample (WAV files carry a
// fact chunk for that; Wave records do not). channels outside 1..8 or a rate
// below 1 give nil results.
func EncodeMSADPCM(samples []int16, channels, rate, samplesPerBlock int) (header, data []byte) {
	if channels < 1 || channels > maxChannels || rate < 1 {
		return nil, nil
	}
	ch := channels
	spb := min(max(samplesPerBlock, 2), 2+(0xFFFF-7*ch)*2/ch)
	if (spb-2)*ch%2 != 0 {
		spb++
	}
	align := 7*ch + (spb-2)*ch/2

	header = make([]byte, 50)
	binary.LittleEndian.PutUint16(header[0:], 0x0002)
	binary.LittleEndian.PutUint16(header[2:], uint16(ch))
	binary.LittleEndian.PutUint32(header[4:], uint32(rate))
	binary.LittleEndian.PutUint32(header[8:], uint32(int64(rate)*int64(align)/int64(spb)))
	binary.LittleEndian.PutUint16(header[12:], uint16(align))
	binary.LittleEndian.PutUint16(header[14:], 4)
	binary.LittleEndian.PutUint16(header[16:], 32)
	binary.LittleEndian.PutUint16(header[18:], uint16(spb))
	binary.LittleEndian.PutUint16(header[20:], uint16(len(msCoefficients)))
	for i, c := range msCoefficients {
		binary.LittleEndian.PutUint16(header[22+4*i:], uint16(int16(c[0])))
		binary.LittleEndian.PutUint16(header[24+4*i:], uint16(int16(c[1])))
	}

	frames := len(samples) / ch
	for start := 0; start < frames; start += spb {
		n := min(spb, frames-start)
		data = appendMSBlock(data, samples[start*ch:(start+n)*ch], ch)
	}
	return header, data
}

// msTrialFrames is how many opening frames of a block score each predictor.
const msTrialFrames = 128

// appendMSBlock encodes one block of n frames (n ≥ 1; a lone frame repeats
// itself as the second header sample).
func appendMSBlock(dst []byte, x []int16, ch int) []byte {
	n := len(x) / ch
	at := func(f, c int) int { return int(x[min(f, n-1)*ch+c]) }
	pred := make([]int, ch)
	delta := make([]int, ch)
	codes := make([][]byte, ch)
	// Predictors are scored on the block's opening samples, where the choice
	// matters most (the delta adapts to the rest): a seventh of the work of
	// scoring whole blocks, for a fraction of a dB.
	trial := min(n, msTrialFrames)
	for c := range ch {
		best := -1.0
		for p := range msCoefficients {
			d := msInitialDelta(x, n, ch, c, p)
			if _, e := msEncodeRun(x, trial, ch, c, p, d); best < 0 || e < best {
				best, pred[c], delta[c] = e, p, d
			}
		}
		codes[c], _ = msEncodeRun(x, n, ch, c, pred[c], delta[c])
	}
	hdr := make([]byte, 7*ch)
	for c := range ch {
		hdr[c] = byte(pred[c])
		binary.LittleEndian.PutUint16(hdr[ch+2*c:], uint16(int16(delta[c])))
		binary.LittleEndian.PutUint16(hdr[3*ch+2*c:], uint16(int16(at(1, c))))
		binary.LittleEndian.PutUint16(hdr[5*ch+2*c:], uint16(int16(at(0, c))))
	}
	dst = append(dst, hdr...)
	nib := max(n-2, 0) * ch
	body := make([]byte, (nib+1)/2)
	for k := range nib {
		code := codes[k%ch][k/ch]
		if k%2 == 0 {
			body[k/2] = code << 4
		} else {
			body[k/2] |= code
		}
	}
	return append(dst, body...)
}

// msInitialDelta sizes the first step from the block's opening prediction
// errors: a quarter of their mean magnitude puts typical codes near ±4, the
// middle of the code range, from the first nibble on.
func msInitialDelta(x []int16, n, ch, c, p int) int {
	c1, c2 := msCoefficients[p][0], msCoefficients[p][1]
	sum, cnt := 0, 0
	for f := 2; f < min(n, 10); f++ {
		s1, s2 := int(x[(f-1)*ch+c]), int(x[(f-2)*ch+c])
		e := int(x[f*ch+c]) - (s1*c1+s2*c2)>>8
		sum += max(e, -e)
		cnt++
	}
	if cnt == 0 {
		return msMinDelta
	}
	return min(max(sum/cnt/4, msMinDelta), 0x7FFF)
}

// msEncodeRun encodes channel c of the block with predictor p and initial
// delta d, returning the codes and the squared error of the reconstruction.
func msEncodeRun(x []int16, n, ch, c, p, d int) ([]byte, float64) {
	first := int(x[c])
	second := first
	if n > 1 {
		second = int(x[ch+c])
	}
	st := msChannel{c1: msCoefficients[p][0], c2: msCoefficients[p][1], delta: d, s1: second, s2: first}
	codes := make([]byte, 0, max(n-2, 0))
	var sq float64
	for f := 2; f < n; f++ {
		want := int(x[f*ch+c])
		guess := (st.s1*st.c1 + st.s2*st.c2) >> 8
		q := roundDiv(want-guess, st.delta)
		code := byte(min(max(q, -8), 7) & 0x0F)
		got := int(st.expand(code))
		e := float64(want - got)
		sq += e * e
		codes = append(codes, code)
	}
	return codes, sq
}

// roundDiv divides rounding half away from zero.
func roundDiv(a, b int) int {
	if a >= 0 {
		return (a + b/2) / b
	}
	return -((-a + b/2) / b)
}
