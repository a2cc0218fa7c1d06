package dat

import (
	"bytes"
	"errors"
	"testing"
)

func TestSoundTableVectors(t *testing.T) {
	type variant struct {
		wave            DID
		prio, prob, vol float32
	}
	tests := []struct {
		name     string
		id       uint32
		b        []byte
		children int
		stype    uint32
		want     []variant
	}{
		{"0x20000001 ShieldUp", 0x20000001, soundTable1Bytes(), 52, shieldUp, []variant{{0x0A000262, 0.7, 1.0, 1.0}}},
		{"0x20000001 EnchantDown", 0x20000001, soundTable1Bytes(), 52, enchantDown, []variant{{0x0A000274, 0.7, 1.0, 0.8}}},
		{"0x200000A8 Swoosh2", 0x200000A8, soundTableA8Bytes(), 32, swoosh2, []variant{{0x0A000519, 0.5, 1, 0.6}, {0x0A00051E, 0.5, 0.5, 0.6}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := DecodeSoundTable(tc.id, tc.b)
			if err != nil {
				t.Fatal(err)
			}
			root := st.Root
			if root.HashKey != 0 || len(root.Records) != 1 || root.Records[0] != (SoundRecord{0, 0, 1, 1}) {
				t.Errorf("root = hash %d records %+v; want 0 and one {0 0 1 1}", root.HashKey, root.Records)
			}
			if len(root.Children) != tc.children {
				t.Errorf("%d children, want %d", len(root.Children), tc.children)
			}
			n := st.Lookup(tc.stype)
			if n == nil {
				t.Fatalf("Lookup(0x%X) = nil", tc.stype)
			}
			if len(n.Records) != len(tc.want) || len(n.Children) != 0 {
				t.Fatalf("node 0x%X: %d records %d children, want %d and 0", tc.stype, len(n.Records), len(n.Children), len(tc.want))
			}
			for i, v := range tc.want {
				if got := n.Records[i]; got != (SoundRecord{v.wave, v.prio, v.prob, v.vol}) {
					t.Errorf("record %d = %+v, want %+v", i, got, v)
				}
			}
			if got := st.Encode(); !bytes.Equal(got, tc.b) {
				t.Errorf("Encode differs at offset 0x%X", firstDiff(got, tc.b))
			}
		})
	}
}

// Retail CSoundTable::Lookup: root's direct children, first match, nothing deeper.
func TestSoundTableLookup(t *testing.T) {
	st := &SoundTable{ID: 0x20000003, Root: SoundNode{Children: []SoundNode{
		{HashKey: 0x46, Records: []SoundRecord{{WaveID: 0x0A000001}}},
		{HashKey: 0x47, Children: []SoundNode{{HashKey: 0x48, Records: []SoundRecord{{WaveID: 0x0A000003}}}}},
		{HashKey: 0x46, Records: []SoundRecord{{WaveID: 0x0A000002}}},
	}}}
	if n := st.Lookup(0x46); n == nil || n.Records[0].WaveID != 0x0A000001 {
		t.Errorf("Lookup(0x46) = %+v, want the first 0x46 child", n)
	}
	if n := st.Lookup(0x48); n != nil {
		t.Errorf("Lookup(0x48) found a grandchild: %+v", n)
	}
	if n := st.Lookup(0); n != nil {
		t.Errorf("Lookup(0) found the root: %+v", n)
	}
	// The tree round-trips, grandchild included.
	got, err := DecodeSoundTable(0x20000003, st.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if g := got.Root.Children[1].Children[0]; g.HashKey != 0x48 || g.Records[0].WaveID != 0x0A000003 {
		t.Errorf("grandchild = %+v", g)
	}
}

func TestSoundTableDepthLimit(t *testing.T) {
	if _, err := DecodeSoundTable(0x20000002, nestedSoundTableBytes(MaxSoundNodeDepth)); err != nil {
		t.Errorf("depth %d: %v", MaxSoundNodeDepth, err)
	}
	b := nestedSoundTableBytes(MaxSoundNodeDepth + 1)
	_, err := DecodeSoundTable(0x20000002, b)
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("depth %d: err = %v, want ErrMalformed", MaxSoundNodeDepth+1, err)
	}
	// The deepest node starts after 17 nodes of 12 bytes and the DID.
	if de := err.(*DecodeError); de.Offset != 4+12*(MaxSoundNodeDepth+1) {
		t.Errorf("offset = 0x%X, want 0x%X", de.Offset, 4+12*(MaxSoundNodeDepth+1))
	}
}

func TestWaveIDsOnlyRootChildren(t *testing.T) {
	st := &SoundTable{ID: 0x20000001, Root: SoundNode{
		Records: []SoundRecord{{WaveID: 0x0A000999}}, // the root's placeholder: not playable
		Children: []SoundNode{
			{HashKey: 0x46, Records: []SoundRecord{{WaveID: 0x0A000002}, {WaveID: 0}, {WaveID: 0x0A000001}}},
			{HashKey: 0x47, Records: []SoundRecord{{WaveID: 0x0A000002}},
				Children: []SoundNode{{HashKey: 0x48, Records: []SoundRecord{{WaveID: 0x0A000777}}}}}, // unreachable
		},
	}}
	got := st.WaveIDs()
	want := []uint32{0x0A000002, 0x0A000001}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("WaveIDs = %#x, want %#x", got, want)
	}
}
