package ambient

import (
	"fmt"
	"math"
	"strconv"
)

// Kind is what an Event reports (docs/interfaces.md §1.3).
type Kind string

// Event kinds (docs/interfaces.md §1.3).
const (
	KindPlay    Kind = "play"
	KindSkip    Kind = "skip"
	KindDequeue Kind = "dequeue"
	KindSteal   Kind = "steal"
	// KindRebuild opens a rebuild's events: the gather has run (ObjCellID,
	// Outdoorish, Total, Instances) and the plays of its UpdatePlayQueue follow.
	KindRebuild Kind = "rebuild"
)

// Reason is why a fire was skipped (docs/interfaces.md §1.3).
type Reason string

// Skip reasons (docs/interfaces.md §1.3).
const (
	ReasonChance      Reason = "chance"      // IntermitSound::PlayNow's roll failed
	ReasonProbability Reason = "probability" // the SoundTable entry's CRT rand() gate failed
	ReasonCull        Reason = "cull"        // gain ≤ 0 or below −50 dB
	ReasonNoWave      Reason = "noWave"      // no entry for the stype, a 0 wave id, or the wave missing/undecodable
	ReasonNoTable     Reason = "noTable"     // the STB's SoundTable is not loaded
	ReasonVoices      Reason = "voices"      // all 16 voices busy, none of lower priority: PlaySoundInternal drops it (an extension of docs/interfaces.md §1.3's list)
	// ReasonLoading: the wave is still on its way (a WaveLoader library: the
	// page's progressive start, docs/divergences.md). Never in trace,
	// render or gather, whose tables come with their waves.
	ReasonLoading Reason = "loading"
)

// Event is one decision of the engine: a sound to play (what, how loud, from
// where), a skipped fire, a sound leaving the queue, or a voice cut off.
type Event struct {
	T          float64 // absolute seconds
	Kind       Kind
	STBIndex   int
	SoundIndex int
	SType      uint32
	Continuous bool
	Wave       uint32
	Variant    int
	Gain       float64 // linear, after every factor
	DB         int     // whole dB as sent to the voice (0 = full scale, negative = quieter)
	Pan        int     // whole dB, −15..15: positive = right, the left channel attenuated by Pan dB (DirectSound's law)
	Dir        int     // direction band 1..8, 0 for a centred play
	Dist       float64 // metres; 0 for a centred play
	Reason     Reason  // KindSkip only
	// Rebuild only (docs/interfaces.md §1.3 "rebuild").
	ObjCellID  uint32
	Outdoorish bool
	Total      float32 // total_sound_count
	Instances  int
	// Slot is the voice (0..15) a play took, or a steal cut; −1 for other
	// kinds. Not part of the trace line (docs/interfaces.md §1.3); a mixer keys its
	// voices by it, one to one with the engine's pool.
	Slot int
}

// MarshalJSON writes exactly the keys docs/interfaces.md §1.3 lists for the event's
// kind, ids as "0x%08X" and numbers as plain decimals.
func (ev Event) MarshalJSON() ([]byte, error) {
	for _, v := range [...]float64{ev.T, ev.Gain, ev.Dist} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("ambient: %s event at t=%v: %v is not a number JSON can hold", ev.Kind, ev.T, v)
		}
	}
	b := make([]byte, 0, 256)
	b = append(b, `{"t":`...)
	b = appendFloat(b, ev.T)
	b = append(b, `,"event":`...)
	b = strconv.AppendQuote(b, string(ev.Kind))
	switch ev.Kind {
	case KindPlay:
		b = appendSound(b, ev)
		b = append(b, `,"sType":`...)
		b = strconv.AppendUint(b, uint64(ev.SType), 10)
		b = append(b, `,"continuous":`...)
		b = strconv.AppendBool(b, ev.Continuous)
		b = appendID(b, "wave", ev.Wave)
		b = appendInt(b, "variant", ev.Variant)
		b = append(b, `,"gain":`...)
		b = appendFloat32(b, ev.Gain)
		b = appendInt(b, "db", ev.DB)
		b = appendInt(b, "pan", ev.Pan)
		b = appendInt(b, "dir", ev.Dir)
		b = append(b, `,"dist":`...)
		b = appendFloat32(b, ev.Dist)
	case KindSkip:
		b = appendSound(b, ev)
		b = append(b, `,"reason":`...)
		b = strconv.AppendQuote(b, string(ev.Reason))
	case KindDequeue:
		b = appendSound(b, ev)
	case KindSteal:
		b = appendID(b, "wave", ev.Wave)
	case KindRebuild:
		b = appendID(b, "objcellId", ev.ObjCellID)
		b = append(b, `,"outdoorish":`...)
		b = strconv.AppendBool(b, ev.Outdoorish)
		b = append(b, `,"totalSoundCount":`...)
		b = appendFloat32(b, float64(ev.Total))
		b = appendInt(b, "instances", ev.Instances)
	default:
		return nil, fmt.Errorf("ambient: event at t=%v: unknown kind %q", ev.T, ev.Kind)
	}
	return append(b, '}'), nil
}

func appendSound(b []byte, ev Event) []byte {
	b = appendInt(b, "stbIndex", ev.STBIndex)
	return appendInt(b, "soundIndex", ev.SoundIndex)
}

func appendInt(b []byte, key string, v int) []byte {
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	return strconv.AppendInt(b, int64(v), 10)
}

func appendID(b []byte, key string, id uint32) []byte {
	b = append(b, `,"`...)
	b = append(b, key...)
	return fmt.Appendf(b, `":"0x%08X"`, id)
}

// appendFloat32 writes a gain or distance at the precision retail keeps it
// (a float, SoundManager's locals): 0.55, not 0.550000011920929.
func appendFloat32(b []byte, v float64) []byte {
	if v == 0 {
		return append(b, '0')
	}
	return strconv.AppendFloat(b, float64(float32(v)), 'f', -1, 32)
}

// appendFloat writes the shortest plain decimal that reads back as v.
func appendFloat(b []byte, v float64) []byte {
	if v == 0 {
		return append(b, '0') // also turns −0 into 0
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}
