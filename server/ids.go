package server

import (
	"fmt"
	"strconv"
)

// parseID reads a record id from a URL segment in the forms the public
// acdatservice accepts on /dats/{dat}/files/{file_id} (its parse_file_id):
// decimal, or hex after "0x" or "0X" with digits in any case. Like its Rust
// integer parse, a leading "+" is allowed on decimal. acdatservice parses into
// an i32, so it rejects hex ids ≥ 0x80000000 (every cell id past landblock
// 0x7F..) and reads "-1" as 0xFFFFFFFF; here ids are the full unsigned 32-bit
// range and a sign of "-" is an error, as contracts §0 asks. Bare hex without
// "0x" is refused by both: "12345678" would be ambiguous.
func parseID(s string) (uint32, error) {
	if s == "" {
		return 0, fmt.Errorf("empty record id")
	}
	if len(s) > 64 {
		return 0, fmt.Errorf("record id of %d characters", len(s))
	}
	t, base := s, 10
	switch {
	case len(t) > 2 && (t[:2] == "0x" || t[:2] == "0X"):
		t, base = t[2:], 16
	case t[0] == '+':
		t = t[1:]
	}
	// ParseUint with an explicit base takes neither signs nor underscores.
	v, err := strconv.ParseUint(t, base, 32)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("record id %q is beyond 32 bits", s)
		}
		return 0, fmt.Errorf("record id %q: want decimal or 0x-hex", s)
	}
	return uint32(v), nil
}
