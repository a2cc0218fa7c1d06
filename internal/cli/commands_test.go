package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"acambient/core/dat"
	"acambient/core/demo"
	"acambient/internal/testkit/cmdtest"
)

// runCmd runs the command line as `go run . args...` would (without serve,
// which is the root's) and returns its stdout, stderr and exit code.
func runCmd(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return cmdtest.Run(t, func(args []string) int { return Main(commands, args) }, args...)
}

// commands is the root's table without serve, whose tests are the root's.
var commands = []*Command{Inspect, Gather, Trace, Render, Export, Demo, NPM, Zones}

func TestMain(m *testing.M) { cmdtest.Main(m) }

func TestInspectRegionKeys(t *testing.T) {
	out, errs, code := runCmd(t, "inspect", "region", "0x13000000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var v struct {
		ID        string `json:"id"`
		SoundInfo struct {
			STBDescs []struct {
				STBID         string `json:"stbId"`
				AmbientSounds []map[string]any
			} `json:"stbDescs"`
		} `json:"soundInfo"`
		SceneInfo struct {
			SceneTypes []map[string]any `json:"sceneTypes"`
		} `json:"sceneInfo"`
		TerrainInfo struct {
			TerrainTypes []map[string]any `json:"terrainTypes"`
		} `json:"terrainInfo"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if v.ID != "0x13000000" || len(v.SoundInfo.STBDescs) < 8 || len(v.TerrainInfo.TerrainTypes) != 32 {
		t.Fatalf("region: id %s, %d STBs, %d terrain types", v.ID, len(v.SoundInfo.STBDescs), len(v.TerrainInfo.TerrainTypes))
	}
	// The contract's key paths (issue: soundInfo.stbDescs[].ambientSounds[].baseChance, …).
	if _, ok := v.SoundInfo.STBDescs[0].AmbientSounds[0]["baseChance"]; !ok {
		t.Error("no soundInfo.stbDescs[].ambientSounds[].baseChance")
	}
	if _, ok := v.SceneInfo.SceneTypes[0]["stbIndex"]; !ok {
		t.Error("no sceneInfo.sceneTypes[].stbIndex")
	}
	if _, ok := v.TerrainInfo.TerrainTypes[0]["sceneTypes"]; !ok {
		t.Error("no terrainInfo.terrainTypes[].sceneTypes")
	}
	if !strings.HasPrefix(v.SoundInfo.STBDescs[0].STBID, "0x2000") {
		t.Errorf("stbId %q is not an uppercase 0x%%08X SoundTable id", v.SoundInfo.STBDescs[0].STBID)
	}
}

// Every record of the demo world, read back through real dat files written
// by `demo -out`, inspects without error.
func TestInspectEveryDemoRecordFromDats(t *testing.T) {
	dir := t.TempDir()
	if _, errs, code := runCmd(t, "demo", "-out", dir); code != 0 {
		t.Fatalf("demo: exit %d: %s", code, errs)
	}
	d, err := (&DataFlags{dats: dir}).Open()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	w, err := demo.Build()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, db := range []struct {
		recs map[uint32][]byte
		kind func(uint32) dat.Kind
	}{{w.Portal, dat.PortalKind}, {w.Cell, dat.CellKind}} {
		for id := range db.recs {
			k := db.kind(id)
			if k == dat.KindUnknown {
				continue
			}
			if _, err := inspectRecord(context.Background(), d, k, id); err != nil {
				t.Errorf("inspect %s 0x%08X: %v", k, id, err)
			}
			n++
		}
	}
	if n < 144+20 {
		t.Errorf("inspected only %d records", n)
	}
	// And the listing agrees with the dat.
	out, _, code := runCmd(t, "inspect", "ls", "-dats", dir, "-db", "cell", "-prefix", "0xA9B4")
	if code != 0 || !strings.Contains(out, "0xA9B4FFFF\n") {
		t.Errorf("ls -prefix 0xA9B4: exit %d, %q", code, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(line, "0xA9B4") {
			t.Errorf("ls -prefix 0xA9B4 listed %q", line)
		}
	}
}

func TestInspectErrors(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"inspect", "region", "0x13000001"}, "0x13000001"},
		{[]string{"inspect", "soundtable", "zzz"}, "id \"zzz\""},
		{[]string{"inspect", "sky", "1"}, "unknown kind"},
		{[]string{"inspect", "region"}, "want KIND and ID"},
		{[]string{"inspect", "region", "0x13000000", "-portal", "/nonexistent/p.dat", "-cell", "/nonexistent/c.dat"}, "nonexistent"},
		{[]string{"nosuch"}, "unknown command"},
	}
	for _, c := range cases {
		_, errs, code := runCmd(t, c.args...)
		if code == 0 || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want non-zero and %q", c.args, code, errs, c.msg)
		}
	}
	// A file that is not a dat is named in the error.
	bad := filepath.Join(t.TempDir(), "client_portal.dat")
	os.WriteFile(bad, []byte("not a dat at all"), 0o644)
	_, errs, code := runCmd(t, "inspect", "region", "0x13000000", "-portal", bad, "-cell", bad)
	if code == 0 || !strings.Contains(errs, bad) {
		t.Errorf("garbage dat: exit %d, %q", code, errs)
	}
}

func landmark(t *testing.T, name string) demo.Landmark {
	for _, l := range demo.Landmarks {
		if l.Name == name {
			return l
		}
	}
	t.Fatalf("no landmark %q", name)
	return demo.Landmark{}
}

func posOf(l demo.Landmark) string {
	b, _ := json.Marshal([]float32{l.X, l.Y, l.Z})
	return "0x" + strings.ToUpper(strings.TrimPrefix(jsonHex(l.ObjCellID), "0x")) + "/" + strings.Trim(string(b), "[]")
}

func jsonHex(v uint32) string { return dat.DID(v).String() }

type gatherOut struct {
	Player            map[string]any   `json:"player"`
	Outdoorish        bool             `json:"outdoorish"`
	TotalSoundCount   float64          `json:"totalSoundCount"`
	ContributingCells int              `json:"contributingCells"`
	Sounds            []map[string]any `json:"sounds"`
}

func gather(t *testing.T, args ...string) gatherOut {
	t.Helper()
	out, errs, code := runCmd(t, append([]string{"gather"}, args...)...)
	if code != 0 {
		t.Fatalf("gather %v: exit %d: %s", args, code, errs)
	}
	var g gatherOut
	if err := json.Unmarshal([]byte(out), &g); err != nil {
		t.Fatalf("gather output not JSON: %v\n%s", err, out)
	}
	return g
}

func TestGatherShapeAndIndoorRules(t *testing.T) {
	g := gather(t, "-player", posOf(landmark(t, "meadow")))
	if !g.Outdoorish || g.TotalSoundCount <= 0 || g.ContributingCells == 0 || len(g.Sounds) == 0 {
		t.Fatalf("meadow: %+v", g)
	}
	want := []string{"stbIndex", "stbId", "soundIndex", "sType", "continuous", "soundCount", "share",
		"currentVolume", "playChance", "authored", "dirs"}
	for _, k := range want {
		if _, ok := g.Sounds[0][k]; !ok {
			t.Errorf("sound has no %q key: %v", k, g.Sounds[0])
		}
	}
	if id, _ := g.Player["objcellId"].(string); id != jsonHex(landmark(t, "meadow").ObjCellID) {
		t.Errorf("player.objcellId = %v", g.Player["objcellId"])
	}

	// The cottage sees outside: the meadow plays in. The cellar does not: silence.
	if g := gather(t, "-player", posOf(landmark(t, "cottage"))); !g.Outdoorish || len(g.Sounds) == 0 {
		t.Errorf("cottage (seen_outside): outdoorish %v, %d sounds", g.Outdoorish, len(g.Sounds))
	}
	if g := gather(t, "-player", posOf(landmark(t, "cellar"))); g.Outdoorish || len(g.Sounds) != 0 || g.TotalSoundCount != 0 {
		t.Errorf("cellar: outdoorish %v, %d sounds, total %v; want false, 0, 0", g.Outdoorish, len(g.Sounds), g.TotalSoundCount)
	}
}

// Different terrain sounds different: at each of the eight terrain
// landmarks the loudest constant bed (what a listener hears most) comes from
// a different STB. The demo's promise.
func TestGatherDiffersByTerrain(t *testing.T) {
	dominant := map[string]string{}
	for _, name := range []string{"meadow", "forest", "river", "coast", "snowfield", "desert", "marsh", "hills"} {
		g := gather(t, "-player", posOf(landmark(t, name)))
		best, loudest := "", -1.0
		for _, s := range g.Sounds {
			if v := s["currentVolume"].(float64); s["continuous"].(bool) && v > loudest {
				best, loudest = s["stbId"].(string), v
			}
		}
		dominant[name] = best
	}
	seen := map[string]string{}
	for name, stb := range dominant {
		if other, dup := seen[stb]; dup {
			t.Errorf("%s and %s are dominated by the same STB %s", name, other, stb)
		}
		seen[stb] = name
	}
}

func TestGatherPOSForms(t *testing.T) {
	l := landmark(t, "meadow")
	// The same spot as objcell/local, global and /loc: the same gather.
	X := 192*float64(l.ObjCellID>>24) + float64(l.X)
	Y := 192*float64(l.ObjCellID>>16&0xFF) + float64(l.Y)
	forms := []string{
		posOf(l),
		"@" + ftoa(X) + "," + ftoa(Y) + "," + ftoa(float64(l.Z)),
		"Your location is: " + jsonHex(l.ObjCellID) + " [" + ftoa(float64(l.X)) + " " + ftoa(float64(l.Y)) + " " + ftoa(float64(l.Z)) + "] 1.0 0.0 0.0 0.0",
	}
	var first gatherOut
	for i, f := range forms {
		g := gather(t, "-player", f)
		if i == 0 {
			first = g
			continue
		}
		if g.TotalSoundCount != first.TotalSoundCount || len(g.Sounds) != len(first.Sounds) {
			t.Errorf("POS %q gathers total %v/%d sounds, want %v/%d", f, g.TotalSoundCount, len(g.Sounds), first.TotalSoundCount, len(first.Sounds))
		}
	}
	// Map coordinates take z from the terrain: the landmark stands on a vertex.
	g := gather(t, "-player", "42.1N,33.6E")
	if z := g.Player["z"].(float64); z <= 0 {
		t.Errorf("map-coordinate player z = %v, want the terrain height", z)
	}
}

func ftoa(f float64) string { b, _ := json.Marshal(f); return string(b) }

func TestTraceDeterministic(t *testing.T) {
	args := []string{"trace", "-player", posOf(landmark(t, "forest")), "-seconds", "30", "-seed", "42"}
	a, errs, code := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("trace: exit %d: %s", code, errs)
	}
	b, _, _ := runCmd(t, args...)
	if a != b {
		t.Fatal("same seed, different trace bytes")
	}
	args[len(args)-1] = "43"
	if c, _, _ := runCmd(t, args...); c == a {
		t.Fatal("different seeds gave the same trace")
	}
	lines := strings.Split(strings.TrimSpace(a), "\n")
	var first map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	if first["event"] != "rebuild" || first["t"].(float64) != 0 {
		t.Fatalf("first line %s, want the t=0 rebuild", lines[0])
	}
	plays := 0
	for _, l := range lines {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if strings.ContainsAny(l, "eE") && strings.Contains(l, "e-") {
			t.Errorf("exponent number in %q", l)
		}
		if ev["event"] == "play" {
			plays++
			if db := ev["db"].(float64); db > 0 || db < -50 {
				t.Errorf("play at %v dB", db)
			}
			if p := ev["pan"].(float64); p < -15 || p > 15 {
				t.Errorf("pan %v", p)
			}
		}
	}
	if plays < 5 {
		t.Errorf("only %d plays in 30 s of forest", plays)
	}
}

// A -path walk from the meadow to the river rebuilds on every cell change.
func TestTracePath(t *testing.T) {
	m, r := landmark(t, "meadow"), landmark(t, "river")
	path := filepath.Join(t.TempDir(), "walk.jsonl")
	body := `{"t": 0, "player": "` + posOf(m) + `"}` + "\n" +
		`{"t": 5, "player": "` + posOf(r) + `", "camera": "` + posOf(r) + `/90"}` + "\n"
	os.WriteFile(path, []byte(body), 0o644)
	out, errs, code := runCmd(t, "trace", "-path", path, "-seconds", "10", "-seed", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rebuilds []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev map[string]any
		json.Unmarshal([]byte(l), &ev)
		if ev["event"] == "rebuild" {
			rebuilds = append(rebuilds, ev["objcellId"].(string))
			if len(rebuilds) == 2 && ev["t"].(float64) < 5 {
				t.Errorf("second rebuild at t=%v, before the path moved", ev["t"])
			}
		}
	}
	if len(rebuilds) != 2 || rebuilds[0] != jsonHex(m.ObjCellID) || rebuilds[1] != jsonHex(r.ObjCellID) {
		t.Errorf("rebuilds %v, want the meadow's then the river's cell", rebuilds)
	}
}

// `CMD -h` starts with the command's usage line and lists its flags, and is
// no error.
func TestHelpFlagPrintsTheUsageLine(t *testing.T) {
	for _, c := range commands {
		_, errs, code := runCmd(t, c.Name, "-h")
		if want := "usage: go run . " + c.UsageLine + "\n"; code != 0 || !strings.HasPrefix(errs, want) || !strings.Contains(errs, "\n  -") {
			t.Errorf("%s -h: exit %d:\n%s\nwant it to start with %q, then the flags", c.Name, code, errs, want)
		}
	}
}
