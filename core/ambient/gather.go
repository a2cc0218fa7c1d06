package ambient

import (
	"math"

	"acambient/core/dat"
	"acambient/core/world"
)

// ChangePosition is the ambient part of CellManager::ChangePosition
// (0x004559B0), fed the player's position. It rebuilds only when the
// objcell changes, on the first call (or the first after Reset), or when
// force is set (the host re-gathers after records arrive). A rebuild runs,
// in retail order: InitSounds → the EnvCell hook (an empty stub in retail,
// CEnvCell::add_ambient_sounds 0x00694750) → the outdoor gather if the cell
// is outdoors or its EnvCell has seen_outside → UpdatePlayQueue →
// ReleaseSoundTables. An objcell of 0 is CellManager::Reset. A position
// with a coordinate that is not a finite number is ignored.
func (e *Engine) ChangePosition(now float64, player world.Position, force bool) (rebuilt bool) {
	e.rebuildEvents = e.rebuildEvents[:0]
	e.sink = &e.rebuildEvents
	if !finite(player.X, player.Y, player.Z) || math.IsNaN(now) {
		return false
	}
	if !e.cameraSet {
		e.camera = player
	}
	if player.ObjCellID == 0 {
		e.Reset()
		return false
	}
	if e.loaded && e.loadPos == player.ObjCellID && !force {
		return false
	}
	e.loaded, e.loadPos = true, player.ObjCellID
	e.rebuilds++

	e.outdoorish = world.IsOutdoor(player.ObjCellID) || e.seenOutside(player.ObjCellID)
	e.initSounds(player)
	if e.outdoorish {
		e.addLandscape()
	}
	e.emit(Event{T: now, Kind: KindRebuild, Slot: -1, ObjCellID: player.ObjCellID,
		Outdoorish: e.outdoorish, Total: e.total, Instances: len(e.sounds)})
	e.updatePlayQueue(now)
	e.releaseSoundTables()
	return true
}

// Reset is CellManager::Reset (0x00455930) → Ambient::FlushSoundTables
// (0x00452920): counts and total to zero, then every table no sound needs is
// released. The play queue is kept; its stale entries leave it when they
// fire and CanHear fails. The next ChangePosition rebuilds.
func (e *Engine) Reset() {
	e.total, e.cells = 0, 0
	e.cellLog = e.cellLog[:0]
	e.live = e.live[:0]
	for i := range e.sounds {
		e.sounds[i].resetCount(&e.stbs[e.sounds[i].stb])
	}
	e.releaseSoundTables()
	e.loaded = false
}

// seenOutside is the indoor half of ChangePosition's test: curr_cell's
// seen_outside flag (CEnvCell::UnPack: flags & 1).
func (e *Engine) seenOutside(objcell uint32) bool {
	if e.land == nil {
		return false
	}
	c := e.land.EnvCell(objcell)
	return c != nil && c.SeenOutside()
}

// initSounds is Ambient::InitSounds (0x005515D0): the rebuild barrier.
func (e *Engine) initSounds(player world.Position) {
	e.playerPos = player
	e.total, e.cells = 0, 0
	e.cellLog = e.cellLog[:0]
	e.live = e.live[:0]
	for i := range e.sounds {
		e.sounds[i].resetCount(&e.stbs[e.sounds[i].stb])
	}
}

// addLandscape is LScape::add_ambient_sounds (0x00505810): every landblock
// of the 3×3 ring around the player's block (get_block_orient size 1,
// Chebyshev distance ≤ 1), skipping missing ones and the world's edge.
//
// Order: retail's outer loop variable is the ix of get_block_orient
// (0x00504F90: ix − mid_radius is the east offset, dir E when positive) and it
// indexes land_blocks[iy + ix·mid_width], the same x-major layout that
// get_block_order and ACE's LScape use. The printed names "by"/"bx" in the
// decompile (docs/retail.md §A4.1) are swapped, as in its cell loop (docs/dat-format.md §6.3): the walk
// is west→east columns, south→north within each column.
func (e *Engine) addLandscape() {
	if e.land == nil {
		return
	}
	for _, b := range Ring(e.playerPos.ObjCellID) {
		if lb := e.land.LandBlock(b[0], b[1]); lb != nil {
			e.addLandBlock(b[0], b[1], lb)
		}
	}
}

// Ring lists the landblocks (bx, by) of the 3×3 ring around objcell's block
// in LScape's order (west→east columns, south→north within each), without
// those beyond the world's edge. It is what a rebuild reads: a host loads
// exactly these before ChangePosition.
func Ring(objcell uint32) [][2]int {
	bx0, by0 := world.BlockX(objcell), world.BlockY(objcell)
	out := make([][2]int, 0, 9)
	for dx := -1; dx <= 1; dx++ {
		for dy := -1; dy <= 1; dy++ {
			if bx, by := bx0+dx, by0+dy; world.ValidBlock(bx, by) {
				out = append(out, [2]int{bx, by})
			}
		}
	}
	return out
}

// addLandBlock is CLandBlock::add_ambient_sounds (0x00530310): each of the
// 8×8 land cells, x-major, names an STB through its SW vertex's terrain word
// and sounds from that vertex, with the land cell's own objcell id.
func (e *Engine) addLandBlock(bx, by int, lb *dat.LandBlock) {
	for x := 0; x < world.CellsPerBlock; x++ {
		for y := 0; y < world.CellsPerBlock; y++ {
			v := 9*x + y
			k := e.stbDesc(lb.Terrain[v])
			if k == noSTB {
				continue
			}
			pos := world.Position{
				ObjCellID: world.OutdoorCellID(bx, by, x, y),
				X:         world.CellLength * float32(x),
				Y:         world.CellLength * float32(y),
				Z:         e.heightZ(lb.Height[v]),
			}
			e.addSound(k, pos)
		}
	}
}

// addSound is Ambient::AddSound (0x00551610). The cell adds its weight to
// total_sound_count once, and to each of its STB's N sounds: the sum of an
// STB's sound counts is N·(its share of the total), retail's quirk.
func (e *Engine) addSound(k int, pos world.Position) {
	if !e.enabled {
		return
	}
	off := world.Offset(e.playerPos, pos)
	w := AddSoundWeight(off)
	if w == 0 {
		return
	}
	dir := calcDir(off)
	e.total += w
	e.cells++
	e.cellLog = append(e.cellLog, CellWeight{ObjCellID: pos.ObjCellID, STBIndex: k, Weight: w, Dir: dir,
		Dist: off.Len()})
	st := &e.stbs[k]
	for i := range st.desc.AmbientSounds {
		n := e.getSound(k, i)
		in := &e.sounds[n]
		if in.reached != e.rebuilds {
			in.reached = e.rebuilds
			e.live = append(e.live, n)
		}
		in.addTo(w, off, dir)
	}
}

// AddSoundWeight is the weight Ambient::AddSound (0x00551610) gives a land
// cell at offset off from the player: its distance gate, then CalcWeight; 0
// when the cell adds nothing. AddSound and the sound-zone layer both call it,
// so the layer's weights are the gather's own.
func AddSoundWeight(off world.Vec3) float32 {
	// Retail sums z² + y² + x² in x87 precision here, not the float d² of
	// CalcWeight; a squared distance of exactly 14400 passes.
	x, y, z := float64(off.X), float64(off.Y), float64(off.Z)
	if !(float64(z*z)+float64(y*y)+float64(x*x) <= float64(maxDistSq)) {
		return 0
	}
	return calcWeight(off)
}

// getSound is Ambient::GetSound (0x005510B0): the instance for (STB, sound
// index), created on first use (ConstantSound when the authored base_chance is
// 0, else IntermitSound) and kept for the engine's life.
func (e *Engine) getSound(k, i int) int32 {
	st := &e.stbs[k]
	if n := st.inst[i]; n >= 0 {
		return n
	}
	desc := &st.desc.AmbientSounds[i]
	n := int32(len(e.sounds))
	e.sounds = append(e.sounds, instance{stb: k, idx: i, desc: desc, constant: desc.IsContinuous()})
	st.inst[i] = n
	return n
}

// updatePlayQueue is Ambient::UpdatePlayQueue (0x00551A50): every instance
// takes its new share, and one that is not queued plays now. Queued ones keep
// their time and pick up the new chance or volume when they next fire.
func (e *Engine) updatePlayQueue(now float64) {
	if !e.enabled {
		return
	}
	for i := range e.sounds {
		in := &e.sounds[i]
		in.updateSound(e.total, &e.stbs[in.stb])
		if !in.onQueue {
			e.play(now, int32(i))
		}
	}
}

// releaseSoundTables is Ambient::ReleaseSoundTables (0x00455770): the table
// of any STB whose sounds all went quiet is dropped, to be fetched lazily on
// the next rebuild. Only STBs that have instances are looked at.
func (e *Engine) releaseSoundTables() {
	for i := range e.sounds {
		st := &e.stbs[e.sounds[i].stb]
		if st.table != nil && st.playCount == 0 {
			st.table = nil
		}
	}
}
