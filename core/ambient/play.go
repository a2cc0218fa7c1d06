package ambient

import (
	"math"

	"acambient/core/world"
)

// UseTime is Ambient::UseTime (0x00551880): every queued sound whose time is
// strictly before now fires. The returned slice is reused by the next call.
func (e *Engine) UseTime(now float64) []Event {
	e.tickEvents = e.tickEvents[:0]
	e.sink = &e.tickEvents
	if !e.enabled {
		return e.tickEvents
	}
	if e.waiting > 0 {
		e.startArrived(now)
	}
	for e.queue.len() > 0 && e.queue.minKey() < now {
		e.play(now, e.queue.removeMin().inst)
	}
	return e.tickEvents
}

// play is Ambient::Play (0x005517A0). A sound that cannot be heard leaves the
// queue until a rebuild plays it again. Otherwise it may fire and is always
// re-keyed at now + GetPlayInterval, relative to now rather than to its old
// key. Random::rand draws happen in the order PlayNow → GetSoundPos (3) →
// variant → (CRT gate) → interval (docs/retail.md §R4).
func (e *Engine) play(now float64, n int32) {
	in := &e.sounds[n]
	st := &e.stbs[in.stb]
	e.unwait(in)
	if !in.canHear(st) {
		in.onQueue = false
		e.emit(Event{T: now, Kind: KindDequeue, Slot: -1, STBIndex: in.stb, SoundIndex: in.idx,
			SType: in.desc.SType, Continuous: in.constant})
		return
	}
	if e.playNow(in) {
		pos, dir := e.camera, dirHere
		if !in.constant {
			dir = e.soundPos(in, &pos)
		}
		e.playAmbient(now, in, st, pos, dir)
	} else {
		e.emit(Event{T: now, Kind: KindSkip, Slot: -1, STBIndex: in.stb, SoundIndex: in.idx,
			SType: in.desc.SType, Continuous: in.constant, Reason: ReasonChance})
	}
	e.queue.insert(now+finiteKey(e.playInterval(in)), n)
	in.onQueue = true
}

// playNow is IntermitSound::PlayNow (0x00550FA0): RollDice(0, 1) ≤
// play_chance. ConstantSound::PlayNow is folded onto a "return 1" (docs/retail.md §R2).
func (e *Engine) playNow(in *instance) bool {
	if in.constant {
		return true
	}
	return e.rand.rollDice(0, 1) <= float64(in.playChance)
}

// playInterval is IntermitSound::GetPlayInterval (0x00551080),
// RollDice(min_rate, max_rate), and ConstantSound::GetPlayInterval
// (0x005510A0), min_rate.
func (e *Engine) playInterval(in *instance) float64 {
	if in.constant {
		return float64(in.desc.MinRate)
	}
	return e.rand.rollDice(in.desc.MinRate, in.desc.MaxRate)
}

// soundPos is IntermitSound::GetSoundPos (0x00551350): a registered
// direction chosen uniformly, its heading jittered by ±π/16, and a distance
// min + (max − min)·u² inside its band (biased toward the near edge). The
// sound is put that far from the listener at the listener's height, so its
// distance to the listener is r. It returns the chosen direction.
func (e *Engine) soundPos(in *instance, pos *world.Position) int {
	i := int(math.Floor(e.rand.rollDice(0, float32(in.numDir))))
	i = max(0, min(i, in.numDir-1, len(in.dirs)-1)) // in range whenever CanHear holds
	dir := int(in.dirs[i])
	jitter := float32(e.rand.rollDice(0, jitterArc))
	h := float32(float64(dirHeading(dir)) + float64(jitter) - float64(jitterArc)*0.5)
	lo, hi := float64(in.minDist[i]), float64(in.maxDist[i])
	u := e.rand.rollDice(0, 1)
	r := u*((hi-lo)*u) + lo
	east := float32(math.Sin(float64(h)) * r)
	north := float32(r * math.Cos(float64(h)))
	pos.X = float32(float64(east) + float64(pos.X))
	pos.Y = float32(float64(north) + float64(pos.Y))
	return dir
}

// playAmbient is SoundManager::PlayAmbientSound (0x00550820) for a placed
// sound and PlayAmbientSoundFromCenter (0x005508B0) for a centred one (dir
// 0), with SoundManager::GetSound (0x00550680), the probability gate,
// PlaySoundInternal (0x00550170), GetAttenuation (0x00550020) and the voice
// pool (0x0054FEC0).
func (e *Engine) playAmbient(now float64, in *instance, st *stbState, pos world.Position, dir int) {
	ev := Event{T: now, Slot: -1, STBIndex: in.stb, SoundIndex: in.idx, SType: in.desc.SType, Continuous: in.constant}
	skip := func(reason Reason) {
		ev.Kind, ev.Reason = KindSkip, reason
		e.emit(ev)
	}
	// The slider's first application (PlayAmbientSound*: volume·A as a float).
	v := e.volume * in.volume()

	if st.table == nil {
		skip(ReasonNoTable)
		return
	}
	node := lookup(st.table, in.desc.SType)
	if node == nil || len(node.Records) == 0 {
		skip(ReasonNoWave) // GetSound returns NULL before drawing
		return
	}
	ev.Variant = e.pickVariant(len(node.Records))
	rec := node.Records[ev.Variant]
	ev.Wave = uint32(rec.WaveID)
	var dur float64
	ok := false
	if rec.WaveID != 0 && e.lib != nil {
		dur, ok = e.lib.Wave(uint32(rec.WaveID))
	}
	if !ok {
		if e.waveLoading(ev.Wave) {
			e.wait(in, ev.Wave)
			skip(ReasonLoading)
			return
		}
		skip(ReasonNoWave)
		return
	}
	// The entry's probability is an independent gate on the CRT rand(),
	// rand()·(1/32767) < probability; the entry's own volume is ignored.
	if !(float64(e.crt.next())*crtScale < float64(rec.Probability)) {
		skip(ReasonProbability)
		return
	}
	var dist float32
	if dir != dirHere {
		dist = world.Offset(pos, e.camera).Len()
		ev.Pan = pan(pos, e.camera, e.cameraHeading, dist, e.mono)
	}
	gain, db, audible := attenuation(dist, v, e.volume)
	if !audible {
		skip(ReasonCull)
		return
	}
	// Every SoundBufRef's priority is 0 (voicePool): nothing is ever lower.
	slot, stolen, stole := e.voices.take(now, ev.Wave, dur, 0)
	if slot < 0 {
		skip(ReasonVoices)
		return
	}
	if stole {
		e.emit(Event{T: now, Kind: KindSteal, Wave: stolen, Slot: slot})
	}
	ev.Kind, ev.Slot, ev.Gain, ev.DB, ev.Dir, ev.Dist = KindPlay, slot, gain, db, dir, float64(dist)
	e.voices.slots[slot].play = ev
	e.emit(ev)
}

// pickVariant is SoundManager::GetSound's entry pick: trunc((N − 1)·
// RollDice(0, 1)). RollDice draws even when N = 1 (its bounds 0 and 1
// differ), and the last of N ≥ 2 entries is never chosen, since rand() < 1
// (docs/retail.md §R5).
func (e *Engine) pickVariant(n int) int {
	return int(uint64(float64(n-1) * e.rand.rollDice(0, 1)))
}
