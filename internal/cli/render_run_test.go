package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"acambient/core/render"
	"acambient/core/session"
	"acambient/datfetch/source"
)

// renderWalk is a walk across the demo world in every POS form a page's
// path carries (docs/interfaces.md §1.1): river → global metres with a
// camera → map coordinates → the meadow.
const renderWalk = `{"t": 0, "player": "0xA9B5002D/120,96,22.8522"}
{"t": 10, "player": "@32880,46280,23", "camera": "0xA9B5002D/120,96,22.8522/90"}
{"t": 20.5, "player": "42.1N,33.6E"}
{"t": 30, "player": "0xA8B6000B/24,48,24.1296"}
`

// TestRenderRunIsTheCommand: session.OpenRun and render.WAV, as the page's
// amb.render calls them (wasm/render.go) over a record source, write the
// bytes `render` writes for the same path, seed and numbers; and those are
// the bytes render wrote before it went through core/render (the hashes
// pinned here, taken from the command before the change).
func TestRenderRunIsTheCommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "walk.jsonl")
	if err := os.WriteFile(path, []byte(renderWalk), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := DemoWorld()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		run  session.RunOptions
		opt  render.Options
		want string
	}{
		{"path", []string{"-path", path, "-seconds", "40", "-seed", "7"},
			session.RunOptions{Seed: 7, Volume: 1, Path: strings.NewReader(renderWalk), PathName: "path"},
			render.Options{Seconds: 40, Tick: 1.0 / 30, Rate: 48000},
			"a8dcb9f30446ef3a582fa74abf6ae3d71599f20e611bc24f58bfdf208ddb483d"},
		{"river", []string{"-player", "0xA9B5002D/120,96,22.8522", "-seconds", "30", "-seed", "7"},
			session.RunOptions{Seed: 7, Volume: 1, Player: "0xA9B5002D/120,96,22.8522"},
			render.Options{Seconds: 30, Tick: 1.0 / 30, Rate: 48000},
			"251fc9ce8e20391c3bfd27a5aa7ad47c9386bb38779c983df4106c2927bd24fb"},
		{"numbers", []string{"-path", path, "-seconds", "12.5", "-seed", "3", "-rate", "22050", "-volume", "0.6", "-tick", "0.05"},
			session.RunOptions{Seed: 3, Volume: 0.6, Path: strings.NewReader(renderWalk), PathName: "path"},
			render.Options{Seconds: 12.5, Tick: 0.05, Rate: 22050},
			""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd, errs, code := runCmd(t, append(append([]string{"render"}, c.args...), "-o", "-")...)
			if code != 0 {
				t.Fatalf("render: exit %d: %s", code, errs)
			}
			walk, err := session.OpenRun(context.Background(), source.NewMemory(w.Portal), source.NewMemory(w.Cell), c.run)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := render.WAV(walk, c.opt, &got); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(got.Bytes())
			if got.String() != cmd {
				t.Errorf("OpenRun+WAV: %d bytes, sha256 %x; the command: %d bytes", got.Len(), sum, len(cmd))
			}
			if c.want != "" && fmt.Sprintf("%x", sum) != c.want {
				t.Errorf("sha256 %x, want %s (the command's bytes before core/render)", sum, c.want)
			}
		})
	}
}
