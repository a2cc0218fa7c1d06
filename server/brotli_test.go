package server

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"acambient/internal/wasmbuild"
)

// TestPrecompressedWasm: Precompress writes ambient.wasm.br, a client that
// accepts br gets it (and it inflates to the wasm), others get gzip or the
// plain file, and a .br older than its wasm (a rebuild since) is never sent.
func TestPrecompressedWasm(t *testing.T) {
	www := writeWWW(t, map[string]string{"ambient.wasm": string(wasmish)})
	b := wasmbuild.WasmBuild{WWW: www}
	if err := b.Precompress(t.Logf); err != nil {
		t.Fatal(err)
	}
	brPath := filepath.Join(www, "ambient.wasm.br")
	packed, err := os.ReadFile(brPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(packed) >= len(wasmish)/10 {
		t.Errorf("br is %d bytes of %d: not compressed", len(packed), len(wasmish))
	}
	h, _ := newTestHandler(t, Options{WWW: www})

	r := do(h, "GET", "/ambient.wasm", "Accept-Encoding", "gzip, deflate, br")
	got, _ := io.ReadAll(brotli.NewReader(r.Body))
	if r.Header.Get("Content-Encoding") != "br" || r.Header.Get("Content-Type") != "application/wasm" || !bytes.Equal(got, wasmish) {
		t.Fatalf("br client: %d %q %q, %d bytes inflated", r.StatusCode, r.Header.Get("Content-Encoding"), r.Header.Get("Content-Type"), len(got))
	}
	if r := do(h, "GET", "/ambient.wasm", "Accept-Encoding", "gzip"); r.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("gzip client got %q", r.Header.Get("Content-Encoding"))
	}
	if r := do(h, "GET", "/ambient.wasm", "Accept-Encoding", "br;q=0, gzip"); r.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("br;q=0 client got %q", r.Header.Get("Content-Encoding"))
	}

	// A rebuild: the wasm is newer than its .br until Precompress runs again.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(www, "ambient.wasm"), later, later); err != nil {
		t.Fatal(err)
	}
	if r := do(h, "GET", "/ambient.wasm", "Accept-Encoding", "br, gzip"); r.Header.Get("Content-Encoding") == "br" {
		t.Error("a .br older than its wasm was sent")
	}
	if err := b.Precompress(t.Logf); err != nil {
		t.Fatal(err)
	}
	if r := do(h, "GET", "/ambient.wasm", "Accept-Encoding", "br, gzip"); r.Header.Get("Content-Encoding") != "br" {
		t.Error("after Precompress again the fresh .br was not sent")
	}
}
