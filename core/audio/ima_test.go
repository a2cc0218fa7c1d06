package audio

import (
	"slices"
	"testing"
)

// One mono block of 8 bytes: header (sample 0, index 0) and one word of 8
// codes, low nibble first: 4 7 C 8 0 0 0 0. By hand, diff = step>>3 plus
// step, step>>1, step>>2 for code bits 4, 2, 1; bit 8 negates:
//
//	4: step 7:  0 + 7 = 7        → 7;  index 0+2 = 2 (step 9)
//	7: step 9:  1 + 9 + 4 + 2 = 16 → 23; index 2+8 = 10 (step 19)
//	C: step 19: 2 + 19 = 21, minus → 2; index 10+2 = 12 (step 23)
//	8: step 23: 2, minus          → 0;  index 12−1 = 11 (step 21)
//	0: step 21: 2 → 2; index 10 (19)   0: 19>>3 = 2 → 4; index 9 (17)
//	0: 17>>3 = 2 → 6; index 8 (16)     0: 16>>3 = 2 → 8
func TestIMAHandBlock(t *testing.T) {
	data := cat(le16(0), []byte{0, 0}, []byte{0x74, 0x8C, 0x00, 0x00})
	p, err := Decode(wave(header(0x11, 1, 11025, 8, 4, le16(9)...), data))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ints(p), []int{0, 7, 23, 2, 0, 2, 4, 6, 8}; !slices.Equal(got, want) {
		t.Errorf("samples %v, want %v", got, want)
	}
}
