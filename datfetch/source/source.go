// Package source is what every record source is: the Source interface (a
// record's bytes by id, decompressed and starting at its DID, nothing parsed
// beyond the DID check), its not-found error, the in-memory source, and the
// caches and request sharing sources and the server build on. The sources
// themselves are datfetch/datfile (the retail dat container) and datfetch
// (HTTP).
package source

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"sync"
)

// ErrNotFound is returned (wrapped) when a source has no record with the id.
// For the ambient engine it is retail's "not found" (stb_not_found); it is
// never retried.
var ErrNotFound = errors.New("record not found")

// Source gives record bytes by id. Implementations are safe for concurrent use.
// The returned slice must not be modified by the caller.
type Source interface {
	Get(ctx context.Context, id uint32) ([]byte, error)
}

// Lister is a Source that can enumerate its ids in ascending order.
type Lister interface {
	Source
	IDs(ctx context.Context) ([]uint32, error)
}

// NotFound builds the error a source returns for a missing id.
func NotFound(id uint32) error { return &NotFoundError{ID: id} }

// NotFoundError is a source's answer for an id it holds no record of. It is
// ErrNotFound (errors.Is) and names the id, for whoever reports it.
type NotFoundError struct{ ID uint32 }

func (e *NotFoundError) Error() string        { return fmt.Sprintf("0x%08X: %v", e.ID, ErrNotFound) }
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// CheckDID verifies that record bytes start with the requested id. The
// iteration record 0xFFFF0001 has no DID prefix and is exempt (docs/dat-format.md §1.5).
func CheckDID(id uint32, b []byte) error {
	if id == 0xFFFF0001 {
		return nil
	}
	if len(b) < 4 {
		return fmt.Errorf("0x%08X: record of %d bytes has no DID", id, len(b))
	}
	if got := binary.LittleEndian.Uint32(b); got != id {
		return fmt.Errorf("0x%08X: record starts with DID 0x%08X", id, got)
	}
	return nil
}

// Memory is an in-memory Source, for tests and the demo world.
type Memory struct {
	mu   sync.RWMutex
	recs map[uint32][]byte
}

// NewMemory returns a Memory holding recs (not copied).
func NewMemory(recs map[uint32][]byte) *Memory {
	if recs == nil {
		recs = map[uint32][]byte{}
	}
	return &Memory{recs: recs}
}

func (m *Memory) Get(_ context.Context, id uint32) ([]byte, error) {
	m.mu.RLock()
	b, ok := m.recs[id]
	m.mu.RUnlock()
	if !ok {
		return nil, NotFound(id)
	}
	return b, nil
}

// Put adds or replaces a record.
func (m *Memory) Put(id uint32, b []byte) {
	m.mu.Lock()
	m.recs[id] = b
	m.mu.Unlock()
}

func (m *Memory) IDs(context.Context) ([]uint32, error) {
	m.mu.RLock()
	ids := make([]uint32, 0, len(m.recs))
	for id := range m.recs {
		ids = append(ids, id)
	}
	m.mu.RUnlock()
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, nil
}
