package acceptance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var idRe = regexp.MustCompile(`^0x[0-9A-F]{8}$`)

// close reports whether got is within ±1e-4 relative of want (absolute 1e-6 near 0).
func close(got, want float64) bool {
	return math.Abs(got-want) <= 1e-4*math.Abs(want)+1e-6
}

// checkNumbers walks a JSON document and reports every number written with an
// exponent (docs/interfaces.md §0: JSON numbers are plain decimals).
func checkNumbers(t *testing.T, what string, b []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Errorf("%s: bad JSON: %v", what, err)
			}
			return
		}
		if n, ok := tok.(json.Number); ok {
			if strings.ContainsAny(n.String(), "eE") {
				t.Errorf("%s: number %s has an exponent (docs/interfaces.md §0: plain decimals)", what, n)
			}
		}
	}
}

// keysOf returns the sorted keys of a JSON object.
func keysOf(m map[string]json.RawMessage) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}

func sameKeys(m map[string]json.RawMessage, want ...string) (bool, string) {
	w := append([]string(nil), want...)
	sort.Strings(w)
	got := keysOf(m)
	return fmt.Sprint(got) == fmt.Sprint(w), fmt.Sprintf("got keys %v, want %v", got, w)
}

// gather output (docs/interfaces.md §1.2).
type gDir struct {
	Dir int     `json:"dir"`
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

type gSound struct {
	STBIndex      int     `json:"stbIndex"`
	STBID         string  `json:"stbId"`
	SoundIndex    int     `json:"soundIndex"`
	SType         uint32  `json:"sType"`
	Continuous    bool    `json:"continuous"`
	SoundCount    float64 `json:"soundCount"`
	Share         float64 `json:"share"`
	CurrentVolume float64 `json:"currentVolume"`
	PlayChance    float64 `json:"playChance"`
	Authored      struct {
		Volume     float64 `json:"volume"`
		BaseChance float64 `json:"baseChance"`
		MinRate    float64 `json:"minRate"`
		MaxRate    float64 `json:"maxRate"`
	} `json:"authored"`
	Dirs []gDir `json:"dirs"`
}

type gOut struct {
	Player struct {
		ObjCellID string  `json:"objcellId"`
		X         float64 `json:"x"`
		Y         float64 `json:"y"`
		Z         float64 `json:"z"`
	} `json:"player"`
	Outdoorish        bool     `json:"outdoorish"`
	TotalSoundCount   float64  `json:"totalSoundCount"`
	ContributingCells int      `json:"contributingCells"`
	Sounds            []gSound `json:"sounds"`
}

func runGather(t *testing.T, args ...string) *gOut {
	t.Helper()
	b := runCmd(t, "gather", args...)
	checkNumbers(t, "gather", b)
	// Shape: the keys docs/interfaces.md §1.2 names must be present.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("gather output is not a JSON object: %v\n%s", err, b)
	}
	for _, k := range []string{"player", "outdoorish", "totalSoundCount", "contributingCells", "sounds"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("gather: missing key %q", k)
		}
	}
	if string(bytes.TrimSpace(raw["sounds"])) == "null" {
		t.Errorf("gather: sounds is null, want a list")
	}
	var rawSounds []map[string]json.RawMessage
	json.Unmarshal(raw["sounds"], &rawSounds)
	for i, s := range rawSounds {
		for _, k := range []string{"stbIndex", "stbId", "soundIndex", "sType", "continuous", "soundCount",
			"share", "currentVolume", "playChance", "authored", "dirs"} {
			if _, ok := s[k]; !ok {
				t.Errorf("gather: sounds[%d] missing key %q", i, k)
			}
		}
		if string(bytes.TrimSpace(s["dirs"])) == "null" {
			t.Errorf("gather: sounds[%d].dirs is null, want a list", i)
		}
	}
	var o gOut
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("gather: %v", err)
	}
	if !idRe.MatchString(o.Player.ObjCellID) {
		t.Errorf("gather: player.objcellId %q is not 0x%%08X", o.Player.ObjCellID)
	}
	for _, s := range o.Sounds {
		if !idRe.MatchString(s.STBID) {
			t.Errorf("gather: stbId %q is not 0x%%08X", s.STBID)
		}
	}
	return &o
}
