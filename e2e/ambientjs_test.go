package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// toPOS turns every position form of docs/interfaces.md §3 into the POS string the
// Go side parses (docs/interfaces.md §1.1). Run under node; no browser needed.
func TestAmbientJSPositionForms(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no node (CI=true)")
		}
		t.Skip("no node")
	}
	_, file, _, _ := runtime.Caller(0)
	mod := filepath.Join(filepath.Dir(filepath.Dir(file)), "www", "ambient.js")
	script := `const { toPOS } = await import(process.argv[1]);
const cases = [
  { objcellId: 0xA9B5002D, x: 120, y: 96, z: 22.85 },
  { objcellId: "0xA9B4001F", x: 72, y: 144, z: 22.2 },
  { X: 32568, Y: 34848, Z: 30 },
  { X: 32568, Y: 34848 },
  { ns: -1.5, ew: -2 },
  { objCellId: 2847211565, frame: { origin: { x: 1, y: 2, z: 3 } } },
  "0x7D64000D [51.9 112.1 11.9]",
  { x: 1 },
  { objcellId: 1, x: "a", y: 0, z: 0 },
];
console.log(JSON.stringify(cases.map((c) => { try { return toPOS(c); } catch (e) { return "error: " + e.message; } })));`
	out, err := exec.Command("node", "--input-type=module", "-e", script, mod).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := []string{
		"0xA9B5002D/120,96,22.85",
		"0xA9B4001F/72,144,22.2",
		"@32568,34848,30",
		// No Z: map coordinates, NS = (34848/24 − 1019.5)/10, EW = (32568/24 − 1019.5)/10.
		"43.250000N,33.750000E",
		"1.500000S,2.000000W",
		"0xA9B5002D/1,2,3",
		"0x7D64000D [51.9 112.1 11.9]",
		"error: ambient: position: want {objcellId,x,y,z}, {X,Y,Z}, {ns,ew} or a /loc string",
		"error: ambient: position: a is not a number",
	}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("case %d: %q, want %q", i, got[i], want[i])
		}
	}
}
