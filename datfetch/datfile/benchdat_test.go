package datfile

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"acambient/internal/testkit/scatterdat"
)

// The scattered cell dat (internal/testkit/scatterdat) is the one issue 12
// measured: 800,000 entries in 780 MiB, a 4-level tree of 17.6k nodes,
// records shuffled over the file, some chains split.
//
// It is written once per process to a temporary folder that TestMain
// removes; benchmarks using it are skipped under -short.

var scattered struct {
	once sync.Once
	path string
	ids  []uint32
	err  error
}

// scatteredDat returns the path of the scattered dat and its ids.
func scatteredDat(b *testing.B) (string, []uint32) {
	b.Helper()
	if testing.Short() {
		b.Skip("the 800k-entry dat takes ~800 MB of disk and a few seconds to write")
	}
	scattered.once.Do(func() {
		dir, err := benchTempDir()
		if err != nil {
			scattered.err = err
			return
		}
		scattered.path = filepath.Join(dir, "client_cell_1.dat")
		scattered.ids, scattered.err = scatterdat.Write(scattered.path, benchRecords)
	})
	if scattered.err != nil {
		b.Fatal(scattered.err)
	}
	return scattered.path, scattered.ids
}

var benchDir struct {
	once sync.Once
	dir  string
	err  error
}

// benchTempDir is one temporary folder for the process, removed by TestMain.
func benchTempDir() (string, error) {
	benchDir.once.Do(func() { benchDir.dir, benchDir.err = os.MkdirTemp("", "datfetch-bench-") })
	return benchDir.dir, benchDir.err
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir.dir != "" {
		os.RemoveAll(benchDir.dir)
	}
	os.Exit(code)
}

// TestScatteredDat checks the benchmark generator on a small instance
// against the reader, two encoders of the format written apart: the reader
// agrees with it on every record, split chains included, and the tree has
// the shape it claims.
func TestScatteredDat(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.dat")
	ids, err := scatterdat.Write(path, 20_000)
	if err != nil {
		t.Fatal(err)
	}
	d, err := OpenDat(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got, err := d.IDs(t.Context())
	if err != nil || !slices.Equal(got, ids) {
		t.Fatalf("IDs: %d, %v; want %d", len(got), err, len(ids))
	}
	for _, id := range ids {
		b, err := d.Get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if want := scatterdat.Record(id); !slices.Equal(b, want) {
			t.Fatalf("0x%08X: bytes differ", id)
		}
	}
}
