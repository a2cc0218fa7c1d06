package dat

import (
	"strings"
	"unicode/utf8"
)

// PStrings (docs/dat-format.md §2, AC1Legacy form): u16 len; if len == 0xFFFF a u32 len
// follows; then len bytes of Windows-1252 text; then pad4 relative to the
// record's first byte. Retail quirk (cWObjHierNode.c): len 1 with the single
// byte 0x00 is the empty string.
//
// Exact re-encoding. In memory a PString is a plain Go string (UTF-8, the
// value retail sees). Three on-disk forms carry more than that value: the
// 0x00 quirk, the u32 escape used for a length below 0xFFFF, and non-zero pad
// bytes (retail skips pads without reading them, so it accepts them). The
// decoder accepts all three, as retail does, and keeps the stored bytes of
// such a string in rawPString, keyed by the string's ordinal in the record;
// the encoder writes those bytes back while the field still holds the decoded
// value, so Encode reproduces the input byte for byte. Edited strings, and
// records built in memory, get the canonical form: the shortest length
// prefix and zero pads.

// rawPString is the stored form of one non-canonical PString.
type rawPString struct {
	seq   int    // ordinal of the PString in the record, from 0
	value string // the decoded value the stored form stands for
	head  []byte // length prefix and text bytes as stored
	pad   []byte // pad bytes as stored
}

// pstring reads one PString and its pad4; what names it in errors.
func (d *decoder) pstring(what string) string {
	d.enter(what, -1)
	defer d.leave()
	start := d.off
	n := uint32(d.u16())
	long := n == 0xFFFF
	if long {
		n = d.u32()
	}
	if d.err == nil && uint64(n) > uint64(d.left()) {
		d.failf(start, ErrTruncated, "string length %d, %d bytes left", n, d.left())
	}
	text := d.take(int(n))
	headEnd := d.off
	pad := d.pad4()
	if d.err != nil {
		return ""
	}

	quirk := n == 1 && text[0] == 0
	s := ""
	if !quirk {
		s = fromWindows1252(text)
	}
	if quirk || long != (n >= 0xFFFF) || !allZero(pad) {
		d.raws = append(d.raws, rawPString{
			seq:   d.nstr,
			value: s,
			head:  append([]byte(nil), d.b[start:headEnd]...),
			pad:   append([]byte(nil), pad...),
		})
	}
	d.nstr++
	return s
}

// pstring writes s: its stored form if the decoder kept one for this ordinal
// and the value is unchanged, else the canonical form.
func (e *encoder) pstring(s string) {
	seq := e.nstr
	e.nstr++
	for len(e.raws) > 0 && e.raws[0].seq < seq {
		e.raws = e.raws[1:]
	}
	// The stored pads are reused only where they still fit the alignment; in
	// the Region every PString starts 4-aligned, so an unchanged value always
	// gets its pads back.
	if len(e.raws) > 0 && e.raws[0].seq == seq && e.raws[0].value == s {
		r := e.raws[0]
		if (4-(len(e.b)+len(r.head))&3)&3 == len(r.pad) {
			e.bytes(r.head)
			e.bytes(r.pad)
			return
		}
	}
	text := toWindows1252(s)
	if len(text) < 0xFFFF {
		e.u16(uint16(len(text)))
	} else {
		e.u16(0xFFFF)
		e.u32(uint32(len(text)))
	}
	e.bytes(text)
	e.pad4()
}

func allZero(p []byte) bool {
	for _, c := range p {
		if c != 0 {
			return false
		}
	}
	return true
}

// win1252 maps bytes 0x80–0x9F to Unicode. The five bytes Windows leaves
// undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) map to the C1 controls of the same
// value, as MultiByteToWideChar does, so every byte has a rune and decoding is
// a bijection onto its image: encoding a decoded string gives back the bytes.
// 0x00–0x7F and 0xA0–0xFF are the identity. Hand-written because the only
// library for it, golang.org/x/text, is not a dependency of this module and a
// 32-entry table does not justify adding one.
var win1252 = [32]rune{
	0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
}

func fromWindows1252(p []byte) string {
	ascii := true
	for _, c := range p {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(p)
	}
	var sb strings.Builder
	sb.Grow(len(p) + len(p)/2)
	for _, c := range p {
		switch {
		case c < 0x80:
			sb.WriteByte(c)
		case c < 0xA0:
			sb.WriteRune(win1252[c-0x80])
		default:
			sb.WriteRune(rune(c))
		}
	}
	return sb.String()
}

// toWindows1252 encodes s; runes Windows-1252 cannot hold become '?', the
// default character of WideCharToMultiByte.
func toWindows1252(s string) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		out = append(out, runeTo1252(r))
	}
	return out
}

func runeTo1252(r rune) byte {
	if r >= 0xA0 && r <= 0xFF {
		return byte(r)
	}
	for i, w := range win1252 {
		if w == r {
			return byte(0x80 + i)
		}
	}
	return '?'
}
