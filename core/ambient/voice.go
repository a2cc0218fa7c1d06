package ambient

import (
	"fmt"
	"math"
)

// numVoices is SoundManager's pool: 16 playing_sounds_ slots used round-robin
// from curr_playing_buffer_ (SoundManager::PlaySoundInternal 0x0054FEC0,
// docs/retail.md §R1 and §R5).
const numVoices = 16

// voicePool is SoundManager::PlaySoundInternal's slot choice (0x0054FEC0),
// read with the PDB's layouts: playing_sounds_ is SoundPlayingData[16]
// {SoundBuf *buffer; float priority; double start_time}, and SoundBuf is
// {CDirSound *; IDirectSoundBuffer *m_pBuf; …} (0x20 bytes, the size the
// function allocates). The decompile's "v5->priority" in the first loop is
// therefore the slot's SoundBuf→m_pBuf, not the stored priority.
//
//  1. From the cursor, the first slot that is empty, has no DirectSound
//     buffer, or has stopped playing is (re)used.
//  2. With all 16 playing, the first slot from the cursor whose stored
//     priority is below the new sound's is stopped and reused ("steal").
//  3. Otherwise the function returns: the new sound is dropped.
//
// The priority is the SoundBufRef's data_.priority_, which only the
// SoundData constructor (0x00551CB0) writes, as 0 — so on the ambient path
// step 2 never fires and a 17th concurrent sound is dropped, not the oldest
// cut (a first reading inferred a steal, docs/retail.md §R12; see docs/divergences.md, "Where we read retail differently from the specs").
type voicePool struct {
	slots  [numVoices]voice
	cursor int
}

type voice struct {
	wave       uint32
	priority   float32
	start, end float64
	used       bool
	play       Event // the play that took the slot (what a page shows of it)
}

// Voice is a pool slot that is sounding: the play that started it (its
// Slot is the voice's) and when it ends, start + the wave's duration, the
// instant the pool counts the slot free again.
type Voice struct {
	Play Event
	End  float64
}

// MarshalJSON writes the play's keys (docs/interfaces.md §1.3), then "end" and
// "slot".
func (v Voice) MarshalJSON() ([]byte, error) {
	if math.IsNaN(v.End) || math.IsInf(v.End, 0) {
		return nil, fmt.Errorf("ambient: voice %d: end %v is not a number JSON can hold", v.Play.Slot, v.End)
	}
	b, err := v.Play.MarshalJSON()
	if err != nil {
		return nil, err
	}
	b = append(b[:len(b)-1], `,"end":`...)
	b = appendFloat(b, v.End)
	b = appendInt(b, "slot", v.Play.Slot)
	return append(b, '}'), nil
}

// take places a wave of dur seconds started at now with the given priority.
// It returns the slot the sound got (−1 when it was dropped) and, if it cut
// another off, that voice's wave.
func (p *voicePool) take(now float64, wave uint32, dur float64, priority float32) (slot int, stolen uint32, stole bool) {
	slot = -1
	for k := 0; k < numVoices && slot < 0; k++ {
		s := (p.cursor + k) % numVoices
		if v := &p.slots[s]; !v.used || now >= v.end {
			slot = s
		}
	}
	for k := 0; k < numVoices && slot < 0; k++ {
		s := (p.cursor + k) % numVoices
		if p.slots[s].priority < priority {
			slot = s
			stolen, stole = p.slots[s].wave, true
		}
	}
	if slot < 0 {
		return -1, 0, false
	}
	p.slots[slot] = voice{wave: wave, priority: priority, start: now, end: now + dur, used: true}
	p.cursor = (slot + 1) % numVoices
	return slot, stolen, stole
}
