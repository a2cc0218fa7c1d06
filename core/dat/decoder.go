package dat

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// decoder reads one record front to back. Its error is sticky, as in
// debug/elf's readers: after the first failure every read returns zero and
// every count returns 0, so the record walkers stay free of error plumbing and
// their loops end at once. The first failure is the one reported.
type decoder struct {
	kind Kind
	id   uint32
	b    []byte
	off  int
	err  *DecodeError
	path []frame // where the walker is, for error messages only

	// PString bookkeeping (Region only): ordinal of the next PString and the
	// ones stored in a non-canonical form (see pstring.go).
	nstr int
	raws []rawPString
}

// frame names one level of nesting: "sky", or "day group 3" when index ≥ 0.
type frame struct {
	name  string
	index int
}

// newDecoder starts a record and checks its DID against the requested id
// (docs/dat-format.md §1.5: the client verifies DID == requested id).
// It returns a value so that the decoder lives on the caller's stack.
func newDecoder(kind Kind, id uint32, b []byte) decoder {
	d := decoder{kind: kind, id: id, b: b}
	if did := d.u32(); d.err == nil && did != id {
		d.failf(0, ErrIDMismatch, "record DID 0x%08X differs from requested id", did)
	}
	return d
}

// finish reports the first failure, or trailing bytes if the walk stopped
// short of the end.
func (d *decoder) finish() error {
	if d.err == nil && d.off != len(d.b) {
		d.failf(d.off, ErrTrailingBytes, "%d trailing bytes after the %s", len(d.b)-d.off, d.kind)
	}
	if d.err != nil {
		return d.err
	}
	return nil
}

func (d *decoder) failf(off int, class error, format string, args ...any) {
	if d.err != nil {
		return
	}
	var sb strings.Builder
	for _, f := range d.path {
		sb.WriteString(f.name)
		if f.index >= 0 {
			sb.WriteByte(' ')
			sb.WriteString(strconv.Itoa(f.index))
		}
		sb.WriteString(": ")
	}
	fmt.Fprintf(&sb, format, args...)
	d.err = &DecodeError{Kind: d.kind, ID: d.id, Offset: off, Msg: sb.String(), Err: class}
}

// enter and leave bracket a nested structure; index < 0 means "not a list element".
func (d *decoder) enter(name string, index int) { d.path = append(d.path, frame{name, index}) }
func (d *decoder) leave()                       { d.path = d.path[:len(d.path)-1] }

func (d *decoder) left() int { return len(d.b) - d.off }

// take returns the next n bytes (aliasing the input), or nil after a failure.
func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n > d.left() {
		d.failf(d.off, ErrTruncated, "need %d bytes, %d left", n, d.left())
		return nil
	}
	p := d.b[d.off : d.off+n : d.off+n]
	d.off += n
	return p
}

// bytes is take with a copy: decoded records never alias the caller's buffer.
func (d *decoder) bytes(n int) []byte {
	p := d.take(n)
	if p == nil {
		return nil
	}
	return append([]byte(nil), p...)
}

func (d *decoder) u8() uint8 {
	if p := d.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (d *decoder) u16() uint16 {
	if p := d.take(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if p := d.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *decoder) i32() int32   { return int32(d.u32()) }
func (d *decoder) did() DID     { return DID(d.u32()) }
func (d *decoder) f32() float32 { return math.Float32frombits(d.u32()) }

func (d *decoder) f64() float64 {
	if p := d.take(8); p != nil {
		return math.Float64frombits(binary.LittleEndian.Uint64(p))
	}
	return 0
}

// count reads a u32 element count and checks, before anything is allocated,
// that count elements of at least minSize bytes each fit in the bytes left.
// It returns 0 after any failure, so a make([]T, count) is always bounded by
// the record's size.
func (d *decoder) count(what string, minSize int) int {
	at := d.off
	n := d.u32()
	if d.err != nil {
		return 0
	}
	need := uint64(n) * uint64(minSize)
	if need > uint64(d.left()) {
		d.failf(at, ErrTruncated, "%s count %d needs %d bytes, %d left", what, n, need, d.left())
		return 0
	}
	return int(n)
}

// pad4 skips to the next offset that is a multiple of 4 from the record's
// first byte (docs/dat-format.md §1.5) and returns the skipped bytes.
func (d *decoder) pad4() []byte {
	return d.take((4 - d.off&3) & 3)
}
