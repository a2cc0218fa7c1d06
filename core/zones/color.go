package zones

import (
	"fmt"
	"math"
	"strconv"
)

// Color is STB k's colour on the layer: the same for index k in every run
// and every source, so a zone keeps its colour between a map of the demo
// and one of Dereth, and between exports.
//
// STBs 0–63 (EoR's region has 37) take palette[k]: colours picked one after
// another by farthest-point sampling in OKLab — each the in-gamut colour
// farthest from all the earlier ones — starting at a brick red, among
// lightnesses 0.52–0.84 and chromas 0.07–0.17 (TestPaletteIsFarthestPoint
// regenerates it). OKLab distances are what the eye tells apart, so each
// new colour is as unlike the earlier ones as the range allows; the
// lightness and chroma bounds keep every colour readable over the map's
// terrain colours: no greys (which read as "nothing there"), nothing dark
// enough to hide the map under it, nothing neon. Beyond 63, hues step by
// the golden angle at mid lightness.
func Color(k int) [3]uint8 {
	if k >= 0 && k < len(palette) {
		return paletteRGB[k]
	}
	h := math.Mod(float64(k)*goldenAngle, 360) * math.Pi / 180
	for c := maxChroma; c > 0; c -= 0.005 {
		if rgb, ok := oklab(0.7, c*math.Cos(h), c*math.Sin(h)); ok {
			return rgb
		}
	}
	rgb, _ := oklab(0.7, 0, 0)
	return rgb
}

// Hex is Color as "#rrggbb".
func Hex(k int) string {
	c := Color(k)
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

var palette = [64]string{
	"#df5b57", "#03ecc0", "#1466c5", "#3e8913", "#e7b4fd", "#fdbf2f", "#22b0f8", "#ad6ad2",
	"#95af7b", "#915b11", "#a83677", "#418e95", "#c893a9", "#88d6fb", "#e78c1c", "#acde60",
	"#725f8b", "#f6baac", "#6582f2", "#a68a04", "#b6322b", "#21b560", "#a56f78", "#a1a8fd",
	"#f085da", "#16bcb5", "#8886b7", "#4d7450", "#d15c9b", "#c0b51c", "#785dca", "#add8af",
	"#fb8e83", "#bf6507", "#2e7193", "#d2a87d", "#2187c9", "#77c966", "#639c6b", "#a04dac",
	"#66a2b9", "#f771a0", "#ba88f9", "#96515a", "#c08a6c", "#7f7810", "#709d09", "#f6a0c2",
	"#84b9d9", "#02d8dc", "#ffa75a", "#9a7a4e", "#e1c885", "#b074a9", "#5b70b5", "#c99edd",
	"#bfc7f9", "#6c98e3", "#30ce9f", "#82c0ac", "#9d5a8a", "#d57a81", "#ea6f2f", "#ba4664",
}

var paletteRGB = func() (out [len(palette)][3]uint8) {
	for k, hex := range palette {
		v, err := strconv.ParseUint(hex[1:], 16, 32)
		if err != nil {
			panic(err)
		}
		out[k] = [3]uint8{uint8(v >> 16), uint8(v >> 8), uint8(v)}
	}
	return out
}()

const (
	goldenAngle = 137.50776405003785 // 360°·(2 − φ)
	maxChroma   = 0.17
)

// oklab converts an OKLab colour to 8-bit sRGB; ok is false when it lies
// outside the sRGB gamut. The matrices are Björn Ottosson's definition of
// OKLab (2020).
func oklab(L, a, b float64) (rgb [3]uint8, ok bool) {
	l := cube(L + 0.3963377774*a + 0.2158037573*b)
	m := cube(L - 0.1055613458*a - 0.0638541728*b)
	s := cube(L - 0.0894841775*a - 1.2914855480*b)
	lin := [3]float64{
		+4.0767416621*l - 3.3077115913*m + 0.2309699292*s,
		-1.2684380046*l + 2.6097574011*m - 0.3413193965*s,
		-0.0041960863*l - 0.7034186147*m + 1.7076147010*s,
	}
	ok = true
	for i, v := range lin {
		if v < -1e-9 || v > 1+1e-9 {
			ok = false
		}
		rgb[i] = uint8(math.Round(255 * gamma(math.Min(1, math.Max(0, v)))))
	}
	return rgb, ok
}

func cube(x float64) float64 { return x * x * x }

// gamma is the sRGB transfer function (IEC 61966-2-1).
func gamma(v float64) float64 {
	if v <= 0.0031308 {
		return 12.92 * v
	}
	return 1.055*math.Pow(v, 1/2.4) - 0.055
}
