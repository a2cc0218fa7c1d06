package datfetch

import (
	"errors"
	"io"

	"acambient/datfetch/datfile"
)

// firstChunk is the first buffer a body of unknown length is read into:
// a landblock or an EnvCell fits, a wave grows from it by doubling.
const firstChunk = 8 << 10

// errOverCap is readBody's "one byte more than the cap arrived".
var errOverCap = errors.New("body runs past the cap")

// errLongerThanDeclared is readBody's "bytes after the declared length".
var errLongerThanDeclared = errors.New("body runs past its Content-Length")

// bodyClaim is the most an answer may hold at once while its body is read
// and, when inflates is set, inflated, for a body of length bytes (-1: unknown)
// under limit. Unknown, it is the chunks read (up to limit), then the
// record they are joined into beside them, or beside the joined body the
// record it inflates to.
func bodyClaim(length, limit int64, inflates bool) int64 {
	if length >= 0 {
		if inflates {
			return length + inflateHold(length, limit)
		}
		return length
	}
	if inflates {
		return limit + max(limit, inflateHold(limit, limit))
	}
	return 2 * limit
}

// inflateHold is the most inflating a compressed record of stored bytes
// holds beside them: the record (at most limit, and at most what deflate
// can expand the stream to) and, past datfile.InflateProbe, the probe buffer
// inflate fills first.
func inflateHold(stored, limit int64) int64 {
	if stored < datfile.MinCompressed {
		return 0
	}
	return inflateCost(min(limit, (stored-4)*datfile.ZlibMaxRatio))
}

// inflateCost is what inflate allocates for a declared size of want.
func inflateCost(want int64) int64 {
	if want > datfile.InflateProbe {
		return want + datfile.InflateProbe
	}
	return want
}

// readBody reads r to its end: length bytes when length ≥ 0 (one buffer,
// taken at once), else in chunks that double, each taken before it is
// allocated, and joined into one buffer of the body's size at the end.
// take waits for budget; give hands it back. It returns how many bytes
// arrived with the error: errOverCap once limit+1 have (the last byte is
// not kept), errLongerThanDeclared, io.ErrUnexpectedEOF for a body shorter
// than length, or the reader's own.
func readBody(r io.Reader, length, limit int64, take func(int64) error, give func(int64)) ([]byte, int64, error) {
	if length >= 0 {
		if err := take(length); err != nil {
			return nil, 0, err
		}
		b := make([]byte, length)
		n, err := fill(r, b)
		switch {
		case err != nil:
			return nil, n, err
		case n < length:
			return nil, n, io.ErrUnexpectedEOF
		}
		if err := atEnd(r); err != nil {
			if err == errOverCap {
				err = errLongerThanDeclared
			}
			return nil, n, err
		}
		return b, n, nil
	}

	var chunks [][]byte
	var total, held int64
	for size := min(limit, firstChunk); ; size = min(total, limit-total) {
		if size == 0 { // full to the cap: the body must end here
			if err := atEnd(r); err != nil {
				return nil, total, err
			}
			break
		}
		if err := take(size); err != nil {
			return nil, total, err
		}
		held += size
		c := make([]byte, size)
		n, err := fill(r, c)
		total += n
		chunks = append(chunks, c[:n])
		if err != nil {
			return nil, total, err
		}
		if n < size {
			break
		}
	}
	if len(chunks) == 1 && int64(cap(chunks[0])) == total {
		return chunks[0], total, nil
	}
	// Joined, the record costs its own size in a cache rather than its
	// chunks' (up to twice as much).
	if err := take(total); err != nil {
		return nil, total, err
	}
	b := make([]byte, 0, total)
	for _, c := range chunks {
		b = append(b, c...)
	}
	give(held)
	return b, total, nil
}

// fill reads into b until it is full or the body ends (a nil error: the
// count says which).
func fill(r io.Reader, b []byte) (int64, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err == io.EOF {
			break
		}
		if err != nil {
			return int64(n), err
		}
	}
	return int64(n), nil
}

// atEnd reads one byte more to see that r has ended: nil at its end,
// errOverCap when there is a byte (dropped: the caller refuses the body),
// or the reader's error.
func atEnd(r io.Reader) error {
	var one [1]byte
	for {
		n, err := r.Read(one[:])
		switch {
		case n > 0:
			return errOverCap
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
	}
}
