// Package servertest is the hand-made world and the request helpers the
// server's tests and the export's share: records laid out by
// docs/dat-format.md, small enough to reason about, and one request run
// through a handler.
package servertest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"acambient/core/dat"
	"acambient/datfetch/datfile"
	"acambient/datfetch/source"
)

// A hand-made world, laid out by docs/dat-format.md, small enough to reason about:
//
//	region 0x13000000: STBs 0x20000012, 0x20000013, 0x20000012 again, 0x20000099 (missing)
//	0x20000012: root placeholder {0,0,1,1}; child 0x46 → waves 0x0A000100, 0x0A000101;
//	            child 0x47 → wave 0 (none) and 0x0A000102, and a grandchild naming
//	            0x0A000666, which retail's Lookup never reaches
//	0x20000013: child 0x46 → 0x0A000101 (shared), 0x0A000404 (missing)
//	waves 0x0A000100..102, 0x0A000666, 0x0A000777 (named by nobody); GfxObj 0x01000001
//	cell: landblocks 0xA9B4FFFF 0xA9B5FFFF, LandBlockInfo 0xA9B4FFFE, EnvCells
//	      0xA9B40100 0xA9B40101, the iteration record 0xFFFF0001
type World struct {
	Portal, Cell map[uint32][]byte
}

var (
	ExportedPortal = []uint32{0x0A000100, 0x0A000101, 0x0A000102, 0x13000000, 0x20000012, 0x20000013}
	ExportedCell   = []uint32{0xA9B40100, 0xA9B40101, 0xA9B4FFFF, 0xA9B5FFFF}
)

// NewWorld builds the world above; ExportedPortal and ExportedCell are
// the records of it an export writes.
func NewWorld(t testing.TB) World {
	t.Helper()
	w := World{Portal: map[uint32][]byte{}, Cell: map[uint32][]byte{}}
	region := dat.Region{
		ID: dat.RegionID, RegionNumber: 1, Version: dat.RegionVersion, RegionName: "Dereth",
		PartsMask: dat.PartSound,
		SoundInfo: &dat.SoundDesc{STBDescs: []dat.AmbientSTBDesc{
			{STBID: 0x20000012}, {STBID: 0x20000013}, {STBID: 0x20000012}, {STBID: 0x20000099},
		}},
	}
	w.Portal[dat.RegionID] = region.Encode()
	if _, err := dat.DecodeRegion(dat.RegionID, w.Portal[dat.RegionID]); err != nil {
		t.Fatalf("fixture region: %v", err)
	}
	w.Portal[0x20000012] = soundTable(0x20000012,
		node{0x46, []uint32{0x0A000100, 0x0A000101}, nil},
		node{0x47, []uint32{0, 0x0A000102}, []node{{0x48, []uint32{0x0A000666}, nil}}},
	)
	w.Portal[0x20000013] = soundTable(0x20000013, node{0x46, []uint32{0x0A000101, 0x0A000404}, nil})
	for _, id := range []uint32{0x0A000100, 0x0A000101, 0x0A000102, 0x0A000666, 0x0A000777} {
		w.Portal[id] = Wave(id, 100+int(id&0xFFF))
	}
	w.Portal[0x01000001] = append(Le32(0x01000001), 1, 2, 3, 4)

	w.Cell[0xA9B4FFFF] = Landblock(0xA9B4FFFF)
	w.Cell[0xA9B5FFFF] = Landblock(0xA9B5FFFF)
	w.Cell[0xA9B4FFFE] = append(Le32(0xA9B4FFFE), 0, 0, 0, 0)
	w.Cell[0xA9B40100] = envCell(0xA9B40100, 1)
	w.Cell[0xA9B40101] = envCell(0xA9B40101, 0)
	w.Cell[0xFFFF0001] = append(Le32(2), Le32(0)...) // no DID prefix (docs/dat-format.md §1.5)
	return w
}

type node struct {
	key      uint32
	waves    []uint32
	children []node
}

// soundTable packs docs/dat-format.md §4: DID, then the root node {hash_key 0, one
// placeholder record {0, 0.0, 1.0, 1.0}, the children}.
func soundTable(id uint32, children ...node) []byte {
	b := Le32(id)
	b = appendNode(b, node{0, []uint32{0}, children}, true)
	return b
}

func appendNode(b []byte, n node, root bool) []byte {
	b = append(b, Le32(n.key)...)
	b = append(b, Le32(uint32(len(n.waves)))...)
	for _, w := range n.waves {
		b = append(b, Le32(w)...)
		prio := float32(0.5)
		if root {
			prio = 0
		}
		b = binary.LittleEndian.AppendUint32(b, f32bits(prio))
		b = binary.LittleEndian.AppendUint32(b, f32bits(1)) // probability
		b = binary.LittleEndian.AppendUint32(b, f32bits(1)) // volume
	}
	b = append(b, Le32(uint32(len(n.children)))...)
	for _, c := range n.children {
		b = appendNode(b, c, false)
	}
	return b
}

// Wave packs docs/dat-format.md §5: DID, H = 18, D, a PCM WAVEFORMATEX (mono 11025 Hz
// 16-bit), then D bytes of samples.
func Wave(id uint32, samples int) []byte {
	b := Le32(id)
	b = append(b, Le32(18)...)
	b = append(b, Le32(uint32(samples))...)
	b = binary.LittleEndian.AppendUint16(b, 1)     // PCM
	b = binary.LittleEndian.AppendUint16(b, 1)     // mono
	b = binary.LittleEndian.AppendUint32(b, 11025) // Hz
	b = binary.LittleEndian.AppendUint32(b, 22050) // bytes/s
	b = binary.LittleEndian.AppendUint16(b, 2)     // block align
	b = binary.LittleEndian.AppendUint16(b, 16)    // bits
	b = binary.LittleEndian.AppendUint16(b, 0)     // cbSize
	for i := range samples {
		b = append(b, byte(i*31+int(id)))
	}
	return b
}

// Landblock packs the 252 bytes of docs/dat-format.md §6.1.
func Landblock(id uint32) []byte {
	b := Le32(id)
	b = append(b, Le32(0)...)
	for i := range 81 {
		b = binary.LittleEndian.AppendUint16(b, uint16(i<<2)) // type i&31, no road, scene 0
	}
	for i := range 81 {
		b = append(b, byte(i))
	}
	b = append(b, 0) // pad4
	if len(b) != 252 {
		panic(fmt.Sprintf("landblock of %d bytes", len(b)))
	}
	return b
}

// envCell packs the prefix of docs/dat-format.md §7 and a few bytes of the rest.
func envCell(id, flags uint32) []byte {
	b := Le32(id)
	b = append(b, Le32(flags)...)
	b = append(b, Le32(id)...)
	b = append(b, 0, 0, 0, 0, 0xAA, 0xBB, 0xCC, 0xDD)
	return b
}

func Le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func f32bits(f float32) uint32 { return math.Float32bits(f) }

// Faulty wraps a source so that some ids fail as a corrupt container would.
type Faulty struct {
	source.Lister
	Bad map[uint32]error
}

func (f Faulty) Get(ctx context.Context, id uint32) ([]byte, error) {
	if err, ok := f.Bad[id]; ok {
		return nil, err
	}
	return f.Lister.Get(ctx, id)
}

// Do runs one request through h. target is sent as written (no cleaning).
func Do(h http.Handler, method, target string, hdr ...string) *http.Response {
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec.Result()
}

func Body(t testing.TB, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func Listing(ids []uint32) string {
	var sb strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&sb, "0x%08X\n", id)
	}
	return sb.String()
}

// WriteDat writes recs as a dat file, storing compress's ids zlib-compressed.
func WriteDat(t *testing.T, set datfile.DataSet, recs map[uint32][]byte, compress ...uint32) (*datfile.Dat, []byte) {
	t.Helper()
	opt := datfile.WriteOptions{DataSet: set, Compress: func(id uint32, _ []byte) bool {
		for _, c := range compress {
			if c == id {
				return true
			}
		}
		return false
	}}
	var buf bytes.Buffer
	if err := datfile.WriteDatOptions(&buf, opt, recs); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), fmt.Sprintf("set%d.dat", set))
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := datfile.OpenDat(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	for _, id := range compress {
		if e, err := d.Lookup(id); err != nil || !e.Compressed() {
			t.Fatalf("0x%08X not stored compressed (%v)", id, err)
		}
	}
	return d, buf.Bytes()
}

// WriteWWW writes a page folder of files (slash-separated name → content)
// and returns it.
func WriteWWW(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// PageWWW is a page whose modules reach each other through every form the
// page uses: static imports, a dynamic one, one from a subfolder up, and
// new URL(…, import.meta.url) for the wasm.
var PageWWW = map[string]string{
	"index.html": `<!doctype html>
<head>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="app.css">
<link rel="preload" href="ambient.wasm" as="fetch" type="application/wasm" crossorigin>
<link rel="modulepreload" href="ambient.js">
<link rel="modulepreload" href="page/dom.js">
<link rel="modulepreload" href="https://cdn.example/x.js">
<script type="module" src="app.js"></script>
</head>
<body><a href="app.js">the source</a> <img src="app.css"></body>
`,
	"app.css":      "body{}",
	"app.js":       `import { AmbientAudio } from "./ambient.js"; import { el } from "./page/dom.js";`,
	"ambient.js":   `const u = new URL("./ambient.wasm", import.meta.url); await import("./wasm_exec.js");`,
	"wasm_exec.js": "globalThis.Go = class {};",
	"page/dom.js":  `import { blockOf } from "../geo.js"; export const el = 1;`,
	"geo.js":       `export const blockOf = 2;`,
	"ambient.wasm": "\x00asm",
}
