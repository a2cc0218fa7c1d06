package dat

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Each fuzz target checks that a decoder never panics, that every failure is
// a *DecodeError with an offset inside the record, and that whatever decodes
// re-encodes to exactly the input bytes (pstring.go keeps non-canonical
// strings; LandBlock keeps its pad byte). The requested id is taken from the
// input's own first four bytes, so the fuzzer spends its time past the DID
// check; the mismatch path is covered by TestDecodeTrailingAndID.

func FuzzRegion(f *testing.F)     { fuzzKind(f, KindRegion) }
func FuzzSoundTable(f *testing.F) { fuzzKind(f, KindSoundTable) }
func FuzzWave(f *testing.F)       { fuzzKind(f, KindWave) }
func FuzzLandBlock(f *testing.F)  { fuzzKind(f, KindLandBlock) }
func FuzzEnvCell(f *testing.F)    { fuzzKind(f, KindEnvCell) }

func fuzzKind(f *testing.F, kind Kind) {
	for _, seed := range fuzzSeeds(kind) {
		f.Add(seed.b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var id uint32
		if len(b) >= 4 {
			id = binary.LittleEndian.Uint32(b)
		}
		v, err := Decode(kind, id, b)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error is %T, not *DecodeError: %v", err, err)
			}
			if de.Offset < 0 || de.Offset > len(b) || de.Kind != kind || de.ID != id {
				t.Fatalf("error names %s 0x%08X offset %d for a %d-byte %s: %v", de.Kind, de.ID, de.Offset, len(b), kind, err)
			}
			return
		}
		enc := v.(interface{ Encode() []byte }).Encode()
		if !bytes.Equal(enc, b) {
			t.Fatalf("Encode differs from the input at offset 0x%X (len %d vs %d)", firstDiff(enc, b), len(enc), len(b))
		}
		// Inspect's view must not panic; NaN floats make it an error, not a crash.
		_, _ = json.Marshal(v)
	})
}

// fuzzSeeds are the valid fixtures of a kind, with wave data cut to 64
// bytes: the codec never looks inside the data, and every new input the
// fuzzer keeps is minimised for up to a minute, which with kilobytes of
// payload stalls the run.
func fuzzSeeds(kind Kind) []validRecord {
	var seeds []validRecord
	for _, v := range validRecords() {
		if v.kind != kind {
			continue
		}
		if kind == KindWave {
			w, err := DecodeWave(v.id, v.b)
			if err != nil {
				panic(err)
			}
			w.Data = w.Data[:64]
			v.b = w.Encode()
		}
		seeds = append(seeds, v)
	}
	return seeds
}

var writeSeeds = flag.Bool("write-fuzz-seeds", false, "write the valid fixtures to testdata/fuzz as seed corpus files")

// TestWriteFuzzSeeds regenerates the committed seed corpus from the fixtures:
// go test -run TestWriteFuzzSeeds -write-fuzz-seeds ./core/dat/
func TestWriteFuzzSeeds(t *testing.T) {
	if !*writeSeeds {
		t.Skip("run with -write-fuzz-seeds to regenerate testdata/fuzz")
	}
	targets := map[Kind]string{
		KindRegion: "FuzzRegion", KindSoundTable: "FuzzSoundTable", KindWave: "FuzzWave",
		KindLandBlock: "FuzzLandBlock", KindEnvCell: "FuzzEnvCell",
	}
	for _, v := range append(append(append(append(fuzzSeeds(KindRegion), fuzzSeeds(KindSoundTable)...),
		fuzzSeeds(KindWave)...), fuzzSeeds(KindLandBlock)...), fuzzSeeds(KindEnvCell)...) {
		dir := filepath.Join("testdata", "fuzz", targets[v.kind])
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		name := "seed-" + strings.ReplaceAll(v.name, " ", "-")
		body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(v.b)) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
