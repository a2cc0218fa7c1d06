package session

import (
	"sync"

	"acambient/core/world"
)

// OffData decides where the listener stands with respect to the data, and
// which of the page's setPlayer calls moves it (docs/interfaces.md §3, §4).
// Off the data — a position over a landblock the source does not have —
// the listener is nowhere: the engine is held disabled, so nothing new
// plays, and what sounds fades out (the fade given to NewOffData: the
// mixer's FadeAll). A position on the data lets the engine go again, as
// the page's own setEnabled says. (The engine's sixteen slots stay busy
// until their waves would have ended, as a fade leaves them; the queue
// keeps its times, so the sounds that fell due meanwhile fire at the first
// tick back, as after retail's own ambient_sounds_enabled is turned back
// on.)
//
// setPlayer calls settle out of order (one may wait on a landblock's
// fetch, the next be refused at once), so the page numbers them: a call
// that settles after a later one has been applied is superseded, and
// neither moves the player nor changes where it stands. Without that, a
// slow position on the data, settling last, would bring back the sound of
// a place the pointer left, while the pointer is off the data.
type OffData struct {
	h    Placer
	fade func()

	mu        sync.Mutex
	applied   uint64 // the number of the latest setPlayer applied
	landblock uint32 // 0xXXYYFFFF off the data; 0 on it
	disabled  bool   // the page's setEnabled(false)
}

// Placer is what OffData moves and holds: a Host.
type Placer interface {
	Resolve(text string) (world.Spec, error)
	Move(p world.Position)
	SetEnabled(on bool)
}

var _ Placer = (*Host)(nil)

// NewOffData returns the listener's placement over h, on the data and
// enabled; fade silences what sounds when it leaves the data.
func NewOffData(h Placer, fade func()) *OffData {
	return &OffData{h: h, fade: fade}
}

// SetPlayer is the page's setPlayer call numbered seq (0: not numbered,
// always applied): it resolves the POS and, unless a later call has been
// applied meanwhile, moves the player there or, over a landblock the
// source lacks, takes it off the data. A superseded call still answers its
// own position, or its own error.
func (o *OffData) SetPlayer(text string, seq uint64) (world.Where, error) {
	sp, err := o.h.Resolve(text)
	o.mu.Lock()
	defer o.mu.Unlock()
	if seq == 0 || seq > o.applied {
		o.applied = max(o.applied, seq)
		if err == nil {
			o.h.Move(sp.Pos)
		}
		o.placedLocked(err)
	}
	if err != nil {
		return world.Where{}, err
	}
	return world.WhereOf(sp.Pos), nil
}

// placedLocked follows an applied setPlayer's outcome: err nil, the
// listener is on the data; a missing landblock, it is nowhere. Any other
// failure (a network error, a bad position) leaves it where it was.
func (o *OffData) placedLocked(err error) {
	if err == nil {
		if o.landblock != 0 {
			o.landblock = 0
			o.h.SetEnabled(!o.disabled)
		}
		return
	}
	p := Classify(err)
	if p.Code != CodeMissingLandblock {
		return
	}
	if o.landblock == 0 {
		// The engine first, so no play slips in after the fade.
		o.h.SetEnabled(false)
		if o.fade != nil {
			o.fade()
		}
	}
	o.landblock = uint32(p.Landblock)
}

// SetEnabled is the page's setEnabled: it applies at once on the data, and
// when the listener comes back to it otherwise.
func (o *OffData) SetEnabled(on bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.disabled = !on
	o.h.SetEnabled(on && o.landblock == 0)
}

// Landblock is the landblock (0xXXYYFFFF) the listener is off the data
// at, or 0 on the data.
func (o *OffData) Landblock() uint32 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.landblock
}
