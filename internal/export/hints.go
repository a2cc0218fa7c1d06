package export

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"acambient/core/dat"
	"acambient/core/hints"
	"acambient/server"
)

// hints writes Out/hints/0xXXYYFFFF for each landblock among ids, one
// worker per CPU. A landblock whose hint cannot be made (a record of its
// ring that cannot be read) is skipped with a warning: its page asks as
// it would without one.
func (e *exporter) hints(ctx context.Context, ids []uint32) error {
	dir := filepath.Join(e.opt.Out, server.HintsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	m, err := hints.New(ctx, e.opt.Portal, e.opt.Cell, true)
	if err != nil {
		return err
	}
	var blocks []uint32
	for _, id := range ids {
		if dat.CellKind(id) == dat.KindLandBlock {
			blocks = append(blocks, id)
		}
	}
	var (
		mu    sync.Mutex
		first error
		next  int
		wg    sync.WaitGroup
	)
	work := func() {
		defer wg.Done()
		for {
			mu.Lock()
			if next == len(blocks) || first != nil {
				mu.Unlock()
				return
			}
			id := blocks[next]
			next++
			mu.Unlock()
			hint, err := m.Landblock(ctx, id)
			var b []byte
			switch {
			case ctx.Err() != nil:
				err = ctx.Err()
			case err != nil:
				e.opt.Warnf("hint of landblock 0x%08X skipped: %v", id, err)
			default:
				b = hint.JSON()
				err = writeFile(filepath.Join(dir, fmt.Sprintf("0x%08X", id)), b)
			}
			mu.Lock()
			switch {
			case b == nil && ctx.Err() == nil:
				e.res.Skipped++
			case err != nil:
				first = cmp.Or(first, err)
			default:
				e.res.Hints++
				e.res.HintBytes += int64(len(b))
			}
			mu.Unlock()
		}
	}
	for range max(1, runtime.NumCPU()) {
		wg.Add(1)
		go work()
	}
	wg.Wait()
	return first
}
