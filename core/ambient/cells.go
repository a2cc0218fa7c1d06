package ambient

// CellWeight is one land cell's part in the last rebuild: the STB its terrain
// word named, the weight AddSound added to total_sound_count and to each of
// that STB's sounds, and the direction band and distance from the player.
// It is what the page draws as the heat map and shows as a voice's origin.
type CellWeight struct {
	ObjCellID uint32  `json:"objcellId"`
	STBIndex  int     `json:"stbIndex"`
	Weight    float32 `json:"weight"`
	Dir       int     `json:"dir"`
	Dist      float32 `json:"dist"`
}

// Cells lists the land cells that contributed to the last rebuild, in
// AddSound's order; their count is State().ContributingCells and their
// weights sum to State().TotalSoundCount. The slice is a copy.
func (e *Engine) Cells() []CellWeight {
	return append([]CellWeight(nil), e.cellLog...)
}

// NextPlays is, per sound of State().Sounds (in its order), when it next
// fires: its key in the play queue, or −1 when it is not queued.
func (e *Engine) NextPlays() []float64 {
	key := make([]float64, len(e.sounds))
	for i := range key {
		key[i] = -1
	}
	if len(e.queue.nodes) > 1 {
		for _, n := range e.queue.nodes[1:] {
			if int(n.inst) < len(key) {
				key[n.inst] = n.key
			}
		}
	}
	out := make([]float64, len(e.live))
	for i, n := range e.live {
		out[i] = key[n]
	}
	return out
}
