// Package pagejson writes, by hand, the JSON the page's API hands to
// JavaScript (docs/interfaces.md §3: state(), the polled events, info(),
// a position's every form, a map tile): the same bytes encoding/json writes
// for these types (tested), without reflection, so that the browser build
// links neither encoding/json nor the type information it reads (issue
// 18.3: about 0.4 MB of the wasm). The types' own hand-written encoders
// (ambient.Event, ambient.Voice, world.Position, world.Where) are used as
// they are.
package pagejson

import (
	"math"
	"strconv"
	"unicode/utf8"

	"acambient/core/ambient"
	"acambient/core/caption"
	"acambient/core/dat"
	"acambient/core/mapview"
	"acambient/core/session"
)

// Snapshot is state()'s JSON.
func Snapshot(b []byte, s session.Snapshot) ([]byte, error) {
	b = append(b, '{')
	b = state(b, s.State)
	b = append(b, `,"heldInstances":`...)
	b = strconv.AppendInt(b, int64(s.HeldInstances), 10)
	b = append(b, `,"voices":`...)
	var err error
	b, err = list(b, s.Voices, func(b []byte, v ambient.Voice) ([]byte, error) { return raw(b)(v.MarshalJSON()) })
	if err != nil {
		return nil, err
	}
	b = append(b, `,"loading":`...)
	b = stats(b, s.Loading)
	b = append(b, `,"where":`...)
	if b, err = raw(b)(s.Where.MarshalJSON()); err != nil {
		return nil, err
	}
	b = append(b, `,"cells":`...)
	b, _ = list(b, s.Cells, func(b []byte, c ambient.CellWeight) ([]byte, error) { return cell(b, c), nil })
	b = append(b, `,"next":`...)
	b, _ = list(b, s.Next, func(b []byte, v float64) ([]byte, error) { return float(b, v, 64), nil })
	b = append(b, `,"time":`...)
	b = float(b, s.Time, 64)
	return append(b, '}'), nil
}

// state writes ambient.State's keys (no braces: Snapshot embeds it).
func state(b []byte, s ambient.State) []byte {
	b = append(b, `"player":`...)
	b, _ = raw(b)(s.Player.MarshalJSON())
	b = append(b, `,"outdoorish":`...)
	b = strconv.AppendBool(b, s.Outdoorish)
	b = append(b, `,"totalSoundCount":`...)
	b = float(b, float64(s.TotalSoundCount), 32)
	b = append(b, `,"contributingCells":`...)
	b = strconv.AppendInt(b, int64(s.ContributingCells), 10)
	b = append(b, `,"sounds":`...)
	b, _ = list(b, s.Sounds, func(b []byte, x ambient.SoundState) ([]byte, error) { return sound(b, x), nil })
	return b
}

func sound(b []byte, s ambient.SoundState) []byte {
	b = append(b, `{"stbIndex":`...)
	b = strconv.AppendInt(b, int64(s.STBIndex), 10)
	b = append(b, `,"stbId":`...)
	b = did(b, s.STBID)
	b = append(b, `,"soundIndex":`...)
	b = strconv.AppendInt(b, int64(s.SoundIndex), 10)
	b = append(b, `,"sType":`...)
	b = strconv.AppendUint(b, uint64(s.SType), 10)
	b = append(b, `,"continuous":`...)
	b = strconv.AppendBool(b, s.Continuous)
	b = append(b, `,"soundCount":`...)
	b = float(b, float64(s.SoundCount), 32)
	b = append(b, `,"share":`...)
	b = float(b, s.Share, 64)
	b = append(b, `,"currentVolume":`...)
	b = float(b, float64(s.CurrentVolume), 32)
	b = append(b, `,"playChance":`...)
	b = float(b, float64(s.PlayChance), 32)
	a := s.Authored
	b = append(b, `,"authored":{"volume":`...)
	b = float(b, float64(a.Volume), 32)
	b = append(b, `,"baseChance":`...)
	b = float(b, float64(a.BaseChance), 32)
	b = append(b, `,"minRate":`...)
	b = float(b, float64(a.MinRate), 32)
	b = append(b, `,"maxRate":`...)
	b = float(b, float64(a.MaxRate), 32)
	b = append(b, `},"dirs":`...)
	b, _ = list(b, s.Dirs, func(b []byte, d ambient.DirBand) ([]byte, error) {
		b = append(b, `{"dir":`...)
		b = strconv.AppendInt(b, int64(d.Dir), 10)
		b = append(b, `,"min":`...)
		b = float(b, float64(d.Min), 32)
		b = append(b, `,"max":`...)
		b = float(b, float64(d.Max), 32)
		return append(b, '}'), nil
	})
	return append(b, '}')
}

func stats(b []byte, s session.Stats) []byte {
	b = append(b, `{"records":`...)
	b = strconv.AppendInt(b, int64(s.Records), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, s.Bytes, 10)
	b = append(b, `,"failed":`...)
	b = strconv.AppendInt(b, int64(s.Failed), 10)
	b = append(b, `,"pending":`...)
	b = strconv.AppendInt(b, int64(s.Pending), 10)
	b = append(b, `,"heldBytes":`...)
	b = strconv.AppendInt(b, s.HeldBytes, 10)
	b = append(b, `,"loadingSkips":`...)
	b = strconv.AppendInt(b, int64(s.LoadingSkips), 10)
	if t := s.Trouble; t != nil {
		b = append(b, `,"trouble":{"reason":`...)
		b = str(b, t.Reason)
		if t.Status != 0 {
			b = append(b, `,"status":`...)
			b = strconv.AppendInt(b, int64(t.Status), 10)
		}
		if t.Rate != 0 {
			b = append(b, `,"rate":`...)
			b = float(b, t.Rate, 64)
		}
		if t.RetryAfter != 0 {
			b = append(b, `,"retryAfter":`...)
			b = float(b, t.RetryAfter, 64)
		}
		b = append(b, `,"retryIn":`...)
		b = float(b, t.RetryIn, 64)
		b = append(b, `,"for":`...)
		b = float(b, t.For, 64)
		b = append(b, `,"message":`...)
		b = str(b, t.Message)
		b = append(b, '}')
	}
	return append(b, '}')
}

func cell(b []byte, c ambient.CellWeight) []byte {
	b = append(b, `{"objcellId":`...)
	b = strconv.AppendUint(b, uint64(c.ObjCellID), 10)
	b = append(b, `,"stbIndex":`...)
	b = strconv.AppendInt(b, int64(c.STBIndex), 10)
	b = append(b, `,"weight":`...)
	b = float(b, float64(c.Weight), 32)
	b = append(b, `,"dir":`...)
	b = strconv.AppendInt(b, int64(c.Dir), 10)
	b = append(b, `,"dist":`...)
	b = float(b, float64(c.Dist), 32)
	return append(b, '}')
}

// Drained is the polled events' and problems' JSON.
func Drained(b []byte, d session.Drained) ([]byte, error) {
	b = append(b, `{"events":`...)
	b, err := list(b, d.Events, func(b []byte, ev ambient.Event) ([]byte, error) { return raw(b)(ev.MarshalJSON()) })
	if err != nil {
		return nil, err
	}
	b = append(b, `,"errors":`...)
	b, _ = list(b, d.Errors, func(b []byte, p session.Problem) ([]byte, error) {
		b = append(b, `{"code":`...)
		b = str(b, string(p.Code))
		b = append(b, `,"message":`...)
		b = str(b, p.Message)
		if p.ID != 0 {
			b = append(b, `,"id":`...)
			b = did(b, p.ID)
		}
		if p.Landblock != 0 {
			b = append(b, `,"landblock":`...)
			b = did(b, p.Landblock)
		}
		if p.Reason != "" {
			b = append(b, `,"reason":`...)
			b = str(b, p.Reason)
		}
		if p.Status != 0 {
			b = append(b, `,"status":`...)
			b = strconv.AppendInt(b, int64(p.Status), 10)
		}
		return append(b, '}'), nil
	})
	b = append(b, `,"captions":`...)
	b, err = list(b, d.Captions, func(b []byte, c caption.Caption) ([]byte, error) { return raw(b)(c.MarshalJSON()) })
	if err != nil {
		return nil, err
	}
	b = append(b, `,"dropped":`...)
	b = strconv.AppendInt(b, int64(d.Dropped), 10)
	return append(b, '}'), nil
}

// Info is info()'s JSON (the terrain legend, the demo's landmarks, the
// bounds of the land).
func Info(b []byte, in mapview.Info) ([]byte, error) {
	b = append(b, `{"terrains":`...)
	b, _ = list(b, in.Terrains, func(b []byte, t mapview.Terrain) ([]byte, error) {
		b = append(b, `{"index":`...)
		b = strconv.AppendInt(b, int64(t.Index), 10)
		b = append(b, `,"name":`...)
		b = str(b, t.Name)
		b = append(b, `,"color":`...)
		b = strconv.AppendInt(b, int64(t.Color), 10)
		return append(b, '}'), nil
	})
	b = append(b, `,"landmarks":`...)
	b, err := list(b, in.Landmarks, func(b []byte, l mapview.Landmark) ([]byte, error) {
		b = append(b, `{"name":`...)
		b = str(b, l.Name)
		b = append(b, `,"description":`...)
		b = str(b, l.Description)
		b = append(b, `,"where":`...)
		b, err := raw(b)(l.Where.MarshalJSON())
		return append(b, '}'), err
	})
	if err != nil {
		return nil, err
	}
	bd := in.Bounds
	b = append(b, `,"bounds":{"bx0":`...)
	b = strconv.AppendInt(b, int64(bd.BX0), 10)
	b = append(b, `,"by0":`...)
	b = strconv.AppendInt(b, int64(bd.BY0), 10)
	b = append(b, `,"bx1":`...)
	b = strconv.AppendInt(b, int64(bd.BX1), 10)
	b = append(b, `,"by1":`...)
	b = strconv.AppendInt(b, int64(bd.BY1), 10)
	b = append(b, `},"demo":`...)
	b = strconv.AppendBool(b, in.Demo)
	b = append(b, `,"region":`...)
	b = str(b, in.Region)
	return append(b, '}'), nil
}

// ---- encoding/json's rules ----

// list writes a slice as encoding/json does: null when nil, [] when empty.
func list[T any](b []byte, xs []T, each func([]byte, T) ([]byte, error)) ([]byte, error) {
	if xs == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = each(b, x); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// raw appends a hand-written encoder's output.
func raw(b []byte) func([]byte, error) ([]byte, error) {
	return func(v []byte, err error) ([]byte, error) {
		if err != nil {
			return nil, err
		}
		return append(b, v...), nil
	}
}

// did is a DID as its MarshalText writes it, quoted.
func did(b []byte, d dat.DID) []byte {
	const hex = "0123456789ABCDEF"
	b = append(b, `"0x`...)
	for s := 28; s >= 0; s -= 4 {
		b = append(b, hex[uint32(d)>>s&0xF])
	}
	return append(b, '"')
}

// float is encoding/json's floatEncoder: the shortest decimal that reads
// back as v at its size, in exponent form below 1e-6 and from 1e21, the
// exponent's leading zero dropped. NaN and ±Inf, which JSON cannot hold,
// are written null (encoding/json refuses them; the page's numbers are
// finite).
func float(b []byte, v float64, bits int) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(v)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, v, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// str is encoding/json's string encoder with HTML escaping (its default):
// <, > and & as \u003c, \u003e, \u0026; U+2028 and U+2029 escaped; bytes
// that are not UTF-8 as \ufffd.
func str(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
