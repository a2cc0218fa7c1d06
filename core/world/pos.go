package world

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Spec is a parsed POS string (docs/interfaces.md §1.1): a position, whether its z must
// still come from the terrain (map coordinates carry none), and an optional
// compass heading for a camera.
type Spec struct {
	Pos        Position
	NeedsZ     bool
	Heading    float64 // compass degrees, 0 = north, 90 = east; valid when HasHeading
	HasHeading bool
}

// ParsePOS reads the four POS forms of docs/interfaces.md §1.1:
//
//	0xA9B4001F/84.5,160.2,42     objcell id and landblock-local origin (metres)
//	@41232.5,34720.2,42          global metres; the outdoor cell is derived
//	42.1N,33.6E                  map coordinates; z comes from the terrain (NeedsZ)
//	0x7D64000D [51.9 112.1 11.9] the game's /loc output, optionally with its
//	                             "Your location is: " prefix and quaternion
//
// Any form may end in "/H", a compass heading in degrees (for a camera).
// The objcell form is taken as given, as retail trusts a position's cell:
// only the numbers are checked. A POS that does not parse, or that lies off
// the map, is a *POSError.
func ParsePOS(s string) (Spec, error) {
	sp, err := parsePOS(s)
	if err != nil {
		return Spec{}, &POSError{Err: err}
	}
	return sp, nil
}

// POSError is a POS that does not parse or lies off the map. Its text is
// the cause's, which names the POS.
type POSError struct{ Err error }

func (e *POSError) Error() string { return e.Err.Error() }
func (e *POSError) Unwrap() error { return e.Err }

func parsePOS(s string) (Spec, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return Spec{}, fmt.Errorf("position: empty")
	}
	var sp Spec
	body := in
	// A trailing "/H" heading. The objcell form has one slash of its own.
	if parts := strings.Split(in, "/"); len(parts) > 1 {
		own := 0
		if isObjcellForm(parts[0]) {
			own = 1
		}
		switch len(parts) - 1 - own {
		case 0:
		case 1:
			h, err := parseFloat(parts[len(parts)-1])
			if err != nil {
				return Spec{}, fmt.Errorf("position %q: heading: %v", s, err)
			}
			sp.Heading = math.Mod(math.Mod(h, 360)+360, 360)
			sp.HasHeading = true
			body = strings.Join(parts[:len(parts)-1], "/")
		default:
			return Spec{}, fmt.Errorf("position %q: too many '/'", s)
		}
	}
	var err error
	switch {
	case strings.HasPrefix(body, "@"):
		err = sp.parseGlobal(body[1:])
	case isLoc(body):
		cell, xyz, _ := matchLoc(body)
		err = sp.parseLocal(cell, xyz)
	case isObjcellForm(body):
		i := strings.IndexByte(body, '/')
		if i < 0 {
			return Spec{}, fmt.Errorf("position %q: want 0xXXYYCCCC/x,y,z", s)
		}
		err = sp.parseLocal(body[:i], strings.Split(body[i+1:], ","))
	case isMap(body):
		m, _ := matchMap(body)
		err = sp.parseMap(m)
	default:
		return Spec{}, fmt.Errorf("position %q: want 0xXXYYCCCC/x,y,z, @X,Y,Z, 42.1N,33.6E or a /loc line", s)
	}
	if err != nil {
		return Spec{}, fmt.Errorf("position %q: %v", s, err)
	}
	return sp, nil
}

func isObjcellForm(s string) bool {
	return len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") && !strings.ContainsAny(s, "[")
}

// maxAbsCoord bounds the numbers no geometry bounds more tightly: a
// landblock-local origin (taken as given, like its cell) and a z. A million
// metres is twenty worlds across; a float32 still keeps 6 cm there.
const maxAbsCoord = 1e6

// The map's extent in map coordinates: global metres 0 ≤ X, Y < 48960
// through EW = (X/24 − 1019.5)/10 (docs/dat-format.md §8).
var (
	mapMin, _ = MapCoords(0, 0)                     // 101.95 S and W
	mapMax, _ = MapCoords(WorldLength, WorldLength) // 102.05 N and E, excluded
)

func (sp *Spec) parseLocal(cell string, xyz []string) error {
	id, err := strconv.ParseUint(cell[2:], 16, 32)
	if err != nil {
		return fmt.Errorf("objcell %q: not 32-bit hex", cell)
	}
	low := id & 0xFFFF
	if !(low >= 1 && low <= MaxOutdoorLow) && !(low >= 0x100 && low <= 0xFFFD) {
		return fmt.Errorf("objcell 0x%08X: low 16 bits are neither a land cell (1..0x40) nor an EnvCell (0x100..0xFFFD)", id)
	}
	if !ValidBlock(BlockX(uint32(id)), BlockY(uint32(id))) {
		return fmt.Errorf("objcell 0x%08X: landblock outside the 255×255 world", id)
	}
	v, err := parseXYZ(xyz)
	if err != nil {
		return err
	}
	for i, axis := range []string{"x", "y", "z"} {
		if err := checkCoord(axis, xyz[i], v[i]); err != nil {
			return err
		}
	}
	sp.Pos = Position{ObjCellID: uint32(id), X: float32(v[0]), Y: float32(v[1]), Z: float32(v[2])}
	return nil
}

// parseGlobal reads X,Y,Z: X and Y must lie in the world (FromGlobal names
// its range), z within ±maxAbsCoord.
func (sp *Spec) parseGlobal(s string) error {
	parts := strings.Split(s, ",")
	v, err := parseXYZ(parts)
	if err != nil {
		return err
	}
	if err := checkCoord("z", parts[2], v[2]); err != nil {
		return err
	}
	sp.Pos, err = FromGlobal(v[0], v[1], v[2])
	return err
}

// checkCoord refuses a number beyond ±maxAbsCoord, naming the range.
func checkCoord(axis, text string, v float64) error {
	if math.Abs(v) > maxAbsCoord {
		return fmt.Errorf("%s %s is outside -%g..%g m", axis, strings.TrimSpace(text), maxAbsCoord, maxAbsCoord)
	}
	return nil
}

func (sp *Spec) parseMap(m []string) error {
	ns, _ := strconv.ParseFloat(m[1], 64)
	ew, _ := strconv.ParseFloat(m[3], 64)
	if strings.EqualFold(m[2], "S") {
		ns = -ns
	}
	if strings.EqualFold(m[4], "W") {
		ew = -ew
	}
	// The map is a little wider north and east than south and west: its
	// centre, 1019.5 cells, is half a cell short of the world's middle.
	if !(ns >= mapMin && ns < mapMax && ew >= mapMin && ew < mapMax) {
		return fmt.Errorf("map coordinates %s%s, %s%s are off the map: north-south runs %.2fS..%.2fN and east-west %.2fW..%.2fE (last excluded)",
			m[1], strings.ToUpper(m[2]), m[3], strings.ToUpper(m[4]), -mapMin, mapMax, -mapMin, mapMax)
	}
	X, Y := FromMap(ns, ew)
	p, err := FromGlobal(X, Y, 0)
	if err != nil {
		return err
	}
	sp.Pos, sp.NeedsZ = p, true
	return nil
}

func parseXYZ(parts []string) ([3]float64, error) {
	var v [3]float64
	if len(parts) != 3 {
		return v, fmt.Errorf("want three numbers x,y,z, got %d", len(parts))
	}
	for i, p := range parts {
		f, err := parseFloat(p)
		if err != nil {
			return v, err
		}
		v[i] = f
	}
	return v, nil
}

// parseFloat reads a finite number of any size; callers check the range
// that applies to it and name that range.
func parseFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if (err != nil && !errors.Is(err, strconv.ErrRange)) || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a finite number", strings.TrimSpace(s))
	}
	return f, nil
}

// The two free-form POS shapes are matched by hand rather than with regexp,
// which would add some 300 KB to the page's wasm for these two patterns.

// asciiSpace is regexp's \s (RE2: [\t\n\f\r ]), what the patterns of
// docs/interfaces.md §1.1 allowed between fields.
const asciiSpace = " \t\n\f\r"

func fields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(asciiSpace, r) })
}

func isLoc(s string) bool { _, _, ok := matchLoc(s); return ok }
func isMap(s string) bool { _, ok := matchMap(s); return ok }

// matchLoc matches what /loc prints and players paste:
//
//	[Your location is:] 0x7D64000D [51.9 112.1 11.9] [w x y z]
//
// returning the objcell text and the three coordinate fields.
func matchLoc(s string) (cell string, xyz []string, ok bool) {
	if rest, found := strings.CutPrefix(s, "Your location is:"); found {
		s = strings.TrimLeft(rest, asciiSpace)
	}
	open := strings.IndexByte(s, '[')
	if open < 0 {
		return "", nil, false
	}
	cell = strings.TrimRight(s[:open], asciiSpace)
	if len(cell) < 3 || len(cell) > 10 || cell[0] != '0' || (cell[1] != 'x' && cell[1] != 'X') || !allHex(cell[2:]) {
		return "", nil, false
	}
	inner, tail, closed := strings.Cut(s[open+1:], "]")
	if !closed {
		return "", nil, false
	}
	xyz = fields(inner)
	quat := fields(tail)
	// Nothing after the last field, as after a map position's E or W: a
	// blank before "/H" is refused in every form (FuzzPOSMatchers found
	// this one taking it).
	if len(xyz) != 3 || !(len(quat) == 0 || len(quat) == 4 && strings.ContainsAny(tail[:1], asciiSpace)) ||
		strings.TrimRight(tail, asciiSpace) != tail {
		return "", nil, false
	}
	return cell, xyz, true
}

// matchMap matches map coordinates, "42.1N, 33.6E" (any case, a comma and/or
// blanks between), returning {whole, ns, N|S, ew, E|W} as parseMap reads them.
func matchMap(s string) ([]string, bool) {
	ns, s, ok := mapNumber(s)
	if !ok {
		return nil, false
	}
	s = strings.TrimLeft(s, asciiSpace)
	if s == "" || !strings.ContainsRune("NSns", rune(s[0])) {
		return nil, false
	}
	nsDir := s[:1]
	rest := strings.TrimLeft(s[1:], asciiSpace+",")
	if len(rest) == len(s)-1 {
		return nil, false // nothing between the two halves
	}
	ew, rest, ok := mapNumber(rest)
	if !ok {
		return nil, false
	}
	rest = strings.TrimLeft(rest, asciiSpace)
	if len(rest) != 1 || !strings.ContainsRune("EWew", rune(rest[0])) {
		return nil, false
	}
	return []string{s, ns, nsDir, ew, rest}, true
}

// mapNumber takes digits, optionally a dot and more digits, from the start.
func mapNumber(s string) (num, rest string, ok bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return "", s, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	return s[:i], s[i:], true
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return s != ""
}
