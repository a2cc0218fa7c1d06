package ambient

import "acambient/core/dat"

// numVoices is SoundManager's pool: 16 playing_sounds_ slots used round-robin
// from curr_playing_buffer_ (SoundManager::PlaySoundInternal 0x0054FEC0,
// runtime §1 and §5).
const numVoices = 16

// voicePool models the pool for ambient plays. A slot is busy until its wave
// has had time to finish. Every stored priority is 0 in retail (no writer of
// SoundBufRef::data_.priority_ exists, runtime §5), so the pool behaves as a
// plain ring: the first free slot from the cursor, else the slot at the
// cursor is stopped for the new sound.
type voicePool struct {
	slots  [numVoices]voice
	cursor int
}

type voice struct {
	wave       uint32
	start, end float64
	used       bool
}

// Voice is a pool slot as State-like views report it.
type Voice struct {
	Slot  int     `json:"slot"`
	Wave  dat.DID `json:"wave"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// take places a wave of dur seconds started at now and returns the wave it
// cut off, if all 16 slots were still playing.
func (p *voicePool) take(now float64, wave uint32, dur float64) (stolen uint32, stole bool) {
	slot := -1
	for k := 0; k < numVoices; k++ {
		s := (p.cursor + k) % numVoices
		if v := &p.slots[s]; !v.used || now >= v.end {
			slot = s
			break
		}
	}
	if slot < 0 {
		slot = p.cursor
		stolen, stole = p.slots[slot].wave, true
	}
	p.slots[slot] = voice{wave: wave, start: now, end: now + dur, used: true}
	p.cursor = (slot + 1) % numVoices
	return stolen, stole
}
