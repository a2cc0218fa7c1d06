package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"acambient/core/dat"
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
type world struct {
	portal, cell map[uint32][]byte
}

var (
	exportedPortal = []uint32{0x0A000100, 0x0A000101, 0x0A000102, 0x13000000, 0x20000012, 0x20000013}
	exportedCell   = []uint32{0xA9B40100, 0xA9B40101, 0xA9B4FFFF, 0xA9B5FFFF}
)

func testWorld(t testing.TB) world {
	t.Helper()
	w := world{portal: map[uint32][]byte{}, cell: map[uint32][]byte{}}
	region := dat.Region{
		ID: dat.RegionID, RegionNumber: 1, Version: dat.RegionVersion, RegionName: "Dereth",
		PartsMask: dat.PartSound,
		SoundInfo: &dat.SoundDesc{STBDescs: []dat.AmbientSTBDesc{
			{STBID: 0x20000012}, {STBID: 0x20000013}, {STBID: 0x20000012}, {STBID: 0x20000099},
		}},
	}
	w.portal[dat.RegionID] = region.Encode()
	if _, err := dat.DecodeRegion(dat.RegionID, w.portal[dat.RegionID]); err != nil {
		t.Fatalf("fixture region: %v", err)
	}
	w.portal[0x20000012] = soundTable(0x20000012,
		node{0x46, []uint32{0x0A000100, 0x0A000101}, nil},
		node{0x47, []uint32{0, 0x0A000102}, []node{{0x48, []uint32{0x0A000666}, nil}}},
	)
	w.portal[0x20000013] = soundTable(0x20000013, node{0x46, []uint32{0x0A000101, 0x0A000404}, nil})
	for _, id := range []uint32{0x0A000100, 0x0A000101, 0x0A000102, 0x0A000666, 0x0A000777} {
		w.portal[id] = wave(id, 100+int(id&0xFFF))
	}
	w.portal[0x01000001] = append(le32(0x01000001), 1, 2, 3, 4)

	w.cell[0xA9B4FFFF] = landblock(0xA9B4FFFF)
	w.cell[0xA9B5FFFF] = landblock(0xA9B5FFFF)
	w.cell[0xA9B4FFFE] = append(le32(0xA9B4FFFE), 0, 0, 0, 0)
	w.cell[0xA9B40100] = envCell(0xA9B40100, 1)
	w.cell[0xA9B40101] = envCell(0xA9B40101, 0)
	w.cell[0xFFFF0001] = append(le32(2), le32(0)...) // no DID prefix (docs/dat-format.md §1.5)
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
	b := le32(id)
	b = appendNode(b, node{0, []uint32{0}, children}, true)
	return b
}

func appendNode(b []byte, n node, root bool) []byte {
	b = append(b, le32(n.key)...)
	b = append(b, le32(uint32(len(n.waves)))...)
	for _, w := range n.waves {
		b = append(b, le32(w)...)
		prio := float32(0.5)
		if root {
			prio = 0
		}
		b = binary.LittleEndian.AppendUint32(b, f32bits(prio))
		b = binary.LittleEndian.AppendUint32(b, f32bits(1)) // probability
		b = binary.LittleEndian.AppendUint32(b, f32bits(1)) // volume
	}
	b = append(b, le32(uint32(len(n.children)))...)
	for _, c := range n.children {
		b = appendNode(b, c, false)
	}
	return b
}

// wave packs docs/dat-format.md §5: DID, H = 18, D, a PCM WAVEFORMATEX (mono 11025 Hz
// 16-bit), then D bytes of samples.
func wave(id uint32, samples int) []byte {
	b := le32(id)
	b = append(b, le32(18)...)
	b = append(b, le32(uint32(samples))...)
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

// landblock packs the 252 bytes of docs/dat-format.md §6.1.
func landblock(id uint32) []byte {
	b := le32(id)
	b = append(b, le32(0)...)
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
	b := le32(id)
	b = append(b, le32(flags)...)
	b = append(b, le32(id)...)
	b = append(b, 0, 0, 0, 0, 0xAA, 0xBB, 0xCC, 0xDD)
	return b
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func f32bits(f float32) uint32 { return math.Float32bits(f) }

// faulty wraps a source so that some ids fail as a corrupt container would.
type faulty struct {
	source.Lister
	bad map[uint32]error
}

func (f faulty) Get(ctx context.Context, id uint32) ([]byte, error) {
	if err, ok := f.bad[id]; ok {
		return nil, err
	}
	return f.Lister.Get(ctx, id)
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newTestHandler serves the test world; logs go to the returned buffer.
func newTestHandler(t testing.TB, opt Options) (*Handler, *syncBuffer) {
	t.Helper()
	w := testWorld(t)
	if opt.Portal == nil {
		opt.Portal = source.NewMemory(w.portal)
	}
	if opt.Cell == nil {
		opt.Cell = source.NewMemory(w.cell)
	}
	if opt.Name == "" {
		opt.Name = "test world"
	}
	logs := &syncBuffer{}
	opt.Log = log.New(logs, "", 0)
	return New(opt), logs
}

// do runs one request through h. target is sent as written (no cleaning).
func do(h http.Handler, method, target string, hdr ...string) *http.Response {
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec.Result()
}

func body(t testing.TB, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func listing(ids []uint32) string {
	var sb strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&sb, "0x%08X\n", id)
	}
	return sb.String()
}
