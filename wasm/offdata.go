//go:build js && wasm

package main

import (
	"fmt"
	"sync"

	"acambient/core/session"
	"acambient/core/world"
)

// offData is where the listener stands with respect to the data, and
// retail's ambient_sounds_enabled as the page set it. Off the data — a
// position over a landblock the source does not have (docs/interfaces.md
// §4) — the listener is nowhere: the engine is held disabled, so nothing
// new plays, and the mixer fades out what sounds (mix.FadeAll). A position
// on the data lets the engine go again, as the page's setting says. (The
// engine's sixteen slots stay busy until their waves would have ended, as
// FadeAll leaves them; the queue keeps its times, so the sounds that fell
// due meanwhile fire at the first tick back, as after retail's own
// enabled setting is turned back on.)
//
// setPlayer calls settle out of order (one may wait on a landblock's fetch,
// the next be refused at once), so ambient.js numbers them: a call that
// settles after a later one has been applied is superseded, and neither
// moves the player nor changes where it stands. Without that, a slow
// position on the data, settling last, would bring back the sound of a
// place the pointer left, while the pointer is off the data.
type offData struct {
	mu        sync.Mutex
	applied   float64 // the number of the latest setPlayer applied
	landblock uint32  // 0xXXYYFFFF off the data; 0 on it
	disabled  bool    // the page's setEnabled(false)
}

// setPlayer is Host.SetPlayerPOS for the setPlayer call numbered seq
// (0: not numbered, always applied): it resolves the POS and, unless a
// later call has been applied meanwhile, moves the player there or, over a
// landblock the source lacks, takes it off the data. A superseded call
// still answers its own position, or its own error.
func (a *api) setPlayer(text string, seq float64) (world.Where, error) {
	sp, err := a.host.Resolve(text)
	o := &a.off
	o.mu.Lock()
	defer o.mu.Unlock()
	if seq == 0 || seq > o.applied {
		o.applied = max(o.applied, seq)
		if err == nil {
			a.host.Move(sp.Pos)
		}
		a.placed(err)
	}
	if err != nil {
		return world.Where{}, err
	}
	return world.WhereOf(sp.Pos), nil
}

// placed follows an applied setPlayer's outcome, under o.mu: err nil, the
// listener is on the data; a missing landblock, it is nowhere. Any other
// failure (a network error, a bad position) leaves it where it was.
func (a *api) placed(err error) {
	o := &a.off
	if err == nil {
		if o.landblock != 0 {
			o.landblock = 0
			a.host.SetEnabled(!o.disabled)
		}
		return
	}
	p := session.Classify(err)
	if p.Code != session.CodeMissingLandblock {
		return
	}
	if o.landblock == 0 {
		// The engine first, so no play slips in after the fade.
		a.host.SetEnabled(false)
		a.audio.mixer.FadeAll()
	}
	o.landblock = uint32(p.Landblock)
}

// setEnabled is the page's setEnabled: it applies at once on the data, and
// when the listener comes back to it otherwise.
func (a *api) setEnabled(on bool) {
	o := &a.off
	o.mu.Lock()
	defer o.mu.Unlock()
	o.disabled = !on
	a.host.SetEnabled(on && o.landblock == 0)
}

// offLandblock is the landblock the listener is off the data at, as
// "0x%08X", or nil on the data.
func (a *api) offLandblock() any {
	a.off.mu.Lock()
	defer a.off.mu.Unlock()
	if a.off.landblock == 0 {
		return nil
	}
	return fmt.Sprintf("0x%08X", a.off.landblock)
}
