package dat

import (
	"errors"
	"fmt"
)

// Classes of decode failure, reachable with errors.Is through a *DecodeError.
var (
	// ErrTruncated: the record ends before a field, or a count promises more
	// elements than the bytes left could hold.
	ErrTruncated = errors.New("record truncated")
	// ErrTrailingBytes: parsing ended before the last byte (docs/dat-format.md §1.5: parsing
	// must consume exactly all bytes).
	ErrTrailingBytes = errors.New("trailing bytes after record")
	// ErrIDMismatch: the record's DID differs from the id it was asked for.
	ErrIDMismatch = errors.New("DID does not match requested id")
	// ErrMalformed: a value retail would refuse (Region version ≠ 3, a Wave
	// header too short for WAVEFORMAT, nesting beyond MaxSoundNodeDepth).
	ErrMalformed = errors.New("malformed record")
)

// DecodeError reports where and why a record failed to decode. Its text reads
// "soundtable 0x20000001: offset 0x1C: child count 70000 needs 840000 bytes, 40 left".
type DecodeError struct {
	Kind   Kind
	ID     uint32
	Offset int    // byte offset from the record's first byte (its DID)
	Msg    string // where inside the record and what went wrong
	Err    error  // one of ErrTruncated, ErrTrailingBytes, ErrIDMismatch, ErrMalformed
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s 0x%08X: offset 0x%X: %s", e.Kind, e.ID, e.Offset, e.Msg)
}

func (e *DecodeError) Unwrap() error { return e.Err }
