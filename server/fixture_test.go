package server

import (
	"log"
	"testing"

	"acambient/datfetch/source"
	"acambient/internal/testkit/cmdtest"
	"acambient/internal/testkit/servertest"
)

// The server's tests run on servertest's hand-made world (its layout is
// documented there), under the names they were written with.
type (
	world      struct{ portal, cell map[uint32][]byte }
	faulty     = servertest.Faulty
	syncBuffer = cmdtest.Buffer
)

var (
	exportedPortal, exportedCell = servertest.ExportedPortal, servertest.ExportedCell
	wave, landblock, le32        = servertest.Wave, servertest.Landblock, servertest.Le32
	do, body, listing            = servertest.Do, servertest.Body, servertest.Listing
	writeDat, writeWWW           = servertest.WriteDat, servertest.WriteWWW
	pageWWW                      = servertest.PageWWW
)

func testWorld(t testing.TB) world {
	w := servertest.NewWorld(t)
	return world{w.Portal, w.Cell}
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
