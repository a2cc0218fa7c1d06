package demo

import (
	"fmt"
	"strings"
)

// Map draws the demo world's terrain as text, north up: one character pair
// per 4×4 land cells (96 m), the class most of the 16 cells' terrain words
// fall in, except that any river cell shows the river and the cottage's
// group shows H. Block coordinates label the edges.
func Map() string {
	return newLand().draw()
}

// mapLegend pairs each map character with its class.
const mapLegend = `. meadow (lively)   , meadow (quiet)   = road   T forest   ~ river
s beach   w sea   * snow/ice   ^ rock   d desert   % marsh   o pond   H cottage`

func (l *land) draw() string {
	var sb strings.Builder
	sb.WriteString("      ")
	for i := 0; i < blocksX; i++ {
		fmt.Fprintf(&sb, "%-4X", blockX0+i)
	}
	sb.WriteString("  (bx)\n")
	for m := 2*blocksY - 1; m >= 0; m-- {
		if m%2 == 1 {
			fmt.Fprintf(&sb, "  %02X  ", blockY0+m/2)
		} else {
			sb.WriteString("      ")
		}
		for k := 0; k < 2*blocksX; k++ {
			c := l.groupChar(4*k, 4*m)
			sb.WriteByte(c)
			sb.WriteByte(c)
		}
		sb.WriteByte('\n')
	}
	sb.WriteString(" (by)\n")
	sb.WriteString(mapLegend)
	sb.WriteByte('\n')
	return sb.String()
}

func (l *land) groupChar(u0, v0 int) byte {
	if int(village[0])/4 == u0/4 && int(village[1])/4 == v0/4 {
		return 'H'
	}
	count := map[byte]int{}
	for u := u0; u < u0+4; u++ {
		for v := v0; v < v0+4; v++ {
			c := classChar(l.at(u, v))
			if c == '~' {
				return c
			}
			count[c]++
		}
	}
	if count['='] >= 3 {
		return '='
	}
	best := byte('?')
	for _, c := range []byte(".,=Tswo*^d%") { // fixed order: ties resolve the same way every time
		if count[c] > count[best] {
			best = c
		}
	}
	return best
}

// classChar is the map character of one vertex's terrain word.
func classChar(x vertex) byte {
	switch x.tt {
	case ttWaterRunning:
		return '~'
	case ttWaterShallowSea, ttWaterStillSea, ttWaterDeepSea:
		return 'w'
	case ttSandGrey:
		return 's'
	case ttSnow, ttIce:
		return '*'
	case ttBarrenRock, ttSedimentaryRock, ttSemiBarrenRock:
		return '^'
	case ttSandYellow, ttSandRockStrewn:
		return 'd'
	case ttMarsh, ttMudRichDirt:
		return '%'
	case ttWaterStanding:
		return 'o'
	case ttForestFloor:
		return 'T'
	case ttPackedDirt:
		return '='
	}
	if x.scene == 1 {
		return ','
	}
	return '.'
}
