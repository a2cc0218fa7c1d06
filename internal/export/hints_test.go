package export

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"acambient/core/demo"
	"acambient/datfetch/source"
	"acambient/internal/testkit/servertest"
	"acambient/server"
)

// TestExportHints: export writes hints/0xXXYYFFFF for every landblock, each
// what serve answers for it; -hints=false (Hints false) writes none.
func TestExportHints(t *testing.T) {
	dw, err := demo.Build()
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Portal: source.NewMemory(dw.Portal), Cell: source.NewMemory(dw.Cell), Out: t.TempDir(), Hints: true}
	res, err := Write(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Hints != res.LandBlocks || res.Hints == 0 {
		t.Errorf("%d hints for %d landblocks", res.Hints, res.LandBlocks)
	}
	files, err := os.ReadDir(filepath.Join(opt.Out, server.HintsDir))
	if err != nil || len(files) != res.Hints {
		t.Fatalf("hints/ holds %d files (%v); want %d", len(files), err, res.Hints)
	}
	h := newTestHandler(t, server.Options{Portal: opt.Portal.(source.Lister), Cell: opt.Cell})
	var n int64
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(opt.Out, server.HintsDir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		n += int64(len(b))
		if r := servertest.Do(h, "GET", "/hints/"+f.Name()); servertest.Body(t, r) != string(b) {
			t.Errorf("hints/%s differs from serve's", f.Name())
		}
	}
	if n != res.HintBytes {
		t.Errorf("%d bytes written; the result says %d", n, res.HintBytes)
	}
	if b, _ := os.ReadFile(filepath.Join(opt.Out, server.HintsDir, "0xA9B5FFFF")); !strings.Contains(string(b), `"0x0A000121"`) {
		t.Errorf("the river's hint %s names no river bed", b)
	}
	opt.Out, opt.Hints = t.TempDir(), false
	if _, err := Write(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(opt.Out, server.HintsDir)); !os.IsNotExist(err) {
		t.Errorf("without Hints, hints/ is there (%v)", err)
	}
}
