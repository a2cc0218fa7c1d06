package dat

import "testing"

func TestNames(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{SoundName(0x00), "Invalid"},
		{SoundName(0x1F), "Swoosh2"},
		{SoundName(0x46), "Ambient1"},
		{SoundName(0x4D), "Ambient8"},
		{SoundName(0x58), "ShieldUp"},
		{SoundName(0x5B), "EnchantDown"},
		{SoundName(0x8A), "UI_Thunder6"},
		{SoundName(0x98), "TriggerActivated1"},
		{SoundName(0xC9), "TriggerActivated50"},
		{SoundName(0xCC), "SkillDownVoid"},
		{SoundName(0xCD), "Sound(0xCD)"},
		{TerrainTypeName(0x0D), "SedimentaryRock"},
		{TerrainTypeName(0x15), "ForestFloor"},
		{TerrainTypeName(0x1F), "DesolateLands"},
		{TerrainTypeName(32), "Terrain(0x20)"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
