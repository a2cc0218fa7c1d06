//go:build js

package datfetch

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"syscall/js"
	"testing"
)

func TestFetchTransport(t *testing.T) {
	base := os.Getenv(faultServerEnv)
	if base == "" {
		t.Skip(faultServerEnv + " unset: the native TestFetchTransportUnderNode starts the server and runs this test")
	}
	tr := Fetch()
	// ask reads one of the fault server's counters for path.
	ask := func(counter, path string) (int64, error) {
		r, err := tr(context.Background(), base+"/"+counter+"?path="+url.QueryEscape(path))
		if err != nil {
			return 0, err
		}
		defer r.Body.Close()
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return 0, err
		}
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s %q: %w", counter, b, err)
		}
		return n, nil
	}
	count := func(counter, path string) int64 {
		n, err := ask(counter, path)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	counts := faultCounts{
		hits:    func(path string) int { return int(count("hits", path)) },
		written: func(path string) int64 { return count("written", path) },
		// Asked from driveStalls' goroutine, where a test cannot fail.
		stalled: func(path string) (int, error) { n, err := ask("stalled", path); return int(n), err },
	}
	t.Run("records", func(t *testing.T) { runRemoteCases(t, base, tr, false, counts) })
	t.Run("listings", func(t *testing.T) { runListingCases(t, base, tr) })
	// The answers a page asked for before the wasm ran (www/ambient.js
	// EarlyFetches) behave as the transport's own: the same faults give
	// the same errors, retries and request counts, each URL's first attempt
	// taken from the table; teed, as the page hands over the answers it
	// reads too (the region, the listing), likewise.
	for _, teed := range []bool{false, true} {
		name := "early"
		if teed {
			name = "early, teed"
		}
		t.Run(name, func(t *testing.T) {
			if r, err := tr(context.Background(), base+"/reset"); err != nil {
				t.Fatal(err)
			} else {
				io.Copy(io.Discard, r.Body)
				r.Body.Close()
			}
			early := earlyTable(teed)
			et := FetchEarly(early)
			t.Run("records", func(t *testing.T) { runRemoteCases(t, base, et, false, counts) })
			t.Run("listings", func(t *testing.T) { runListingCases(t, base, et) })
			if n := early.Get("taken").Int(); n < 20 {
				t.Errorf("the transport took %d answers from the table; want one for each URL asked", n)
			}
		})
	}
}

// earlyTable is a table of early answers as www/ambient.js keeps it: take(url)
// hands over, once per URL, what fetch(url, {signal, redirect: "follow"})
// returned, asked for here at that first take (the page asks sooner: the
// transport cannot tell). teed: the answer's body is a branch of a tee
// whose other branch is read here (its first 64 KiB), the answer an object
// with the Response's status, headers and type, as the page hands over
// the answers it reads itself.
func earlyTable(teed bool) js.Value {
	return js.Global().Call("eval", `(function (teed) {
		const seen = new Set();
		const table = { taken: 0, take(url) {
			if (seen.has(url)) return undefined;
			seen.add(url);
			table.taken++;
			const controller = new AbortController();
			let response = fetch(url, { signal: controller.signal, redirect: "follow" });
			if (teed) response = response.then((r) => {
				if (!r.body) return r;
				const [mine, theirs] = r.body.tee();
				(async () => {
					const reader = mine.getReader();
					for (let n = 0; n < 65536;) { const { done, value } = await reader.read(); if (done) return; n += value.byteLength; }
					reader.cancel();
				})().catch(() => {});
				return { status: r.status, statusText: r.statusText, ok: r.ok, type: r.type, url: r.url, headers: r.headers, body: theirs };
			});
			response.catch(() => {});
			return { response, controller };
		} };
		return table;
	})`).Invoke(teed)
}

// Which Content-Length fetch can trust: only where every header shows and
// no Content-Encoding is sent is it the length of what fetch hands over.
func TestFetchLengths(t *testing.T) {
	for _, tc := range []struct {
		typ             string
		h               map[string]string
		length, encoded int64
	}{
		{"basic", map[string]string{"content-length": "3000"}, 3000, 0},
		{"basic", map[string]string{"content-length": "3000", "content-encoding": "identity"}, 3000, 0},
		{"basic", map[string]string{"content-length": "900", "content-encoding": "gzip"}, -1, 900},
		// Cross-origin, Content-Encoding is hidden unless exposed: the
		// length may be the encoded one.
		{"cors", map[string]string{"content-length": "3000"}, -1, 3000},
		{"basic", map[string]string{}, -1, 0},
		{"basic", map[string]string{"content-length": "-5"}, -1, 0},
		{"basic", map[string]string{"content-length": "lots"}, -1, 0},
	} {
		if l, e := fetchLengths(tc.typ, tc.h); l != tc.length || e != tc.encoded {
			t.Errorf("%s %v: length %d, encoded %d; want %d, %d", tc.typ, tc.h, l, e, tc.length, tc.encoded)
		}
	}
}

// A body of known length costs as few reads as its buffer allows, and no
// read after its last byte: each read is a promise, and each promise a turn
// of Go's scheduler in the page's worker (the first ring's records come in
// behind them, bench/firstsound). One of unknown length reads 64 KiB at a
// time to the end it is told of. (Close then reads the end of the first,
// unawaited: a cancel would abort its request.)
func TestFetchBodyReads(t *testing.T) {
	const size = 300_000
	fake := js.Global().Call("eval", `(function (size) {
		const body = new Uint8Array(size);
		for (let i = 0; i < size; i++) body[i] = (i * 7) & 0xff;
		const fake = { length: true, last: null }; // last: the latest request's counts
		fake.fetch = () => {
			const count = fake.last = { reads: 0, ends: 0 };
			const stream = new ReadableStream({ type: "bytes", start(c) { c.enqueue(body.slice()); c.close(); } });
			const headers = new Headers(fake.length ? { "content-length": String(size), "etag": '"x"' } : {});
			const wrapped = { getReader(opt) {
				const r = stream.getReader(opt);
				return { read: async (v) => { count.reads++; const x = await r.read(v); if (x.done) count.ends++; return x; },
					cancel: (why) => r.cancel(why) };
			} };
			return Promise.resolve({ status: 200, type: "basic", headers, body: wrapped });
		};
		return fake;
	})`).Invoke(size)
	saved := js.Global().Get("fetch")
	js.Global().Set("fetch", fake.Get("fetch"))
	defer js.Global().Set("fetch", saved)

	for _, tc := range []struct {
		name        string
		length      bool
		reads, ends int
	}{
		// One buffer of 300,000 bytes: 256 KiB, then the rest.
		{"Content-Length", true, 2, 0},
		// Chunks of 8, 8, 16, 32, 64 and 128 KiB (two reads of 64 KiB),
		// then 256 KiB: the rest, and the end.
		{"no length", false, 9, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake.Set("length", tc.length)
			r, err := Fetch()(context.Background(), "https://example.invalid/0x0A000121")
			if err != nil {
				t.Fatal(err)
			}
			// As the source reads it (remote.go).
			b, _, err := readBody(r.Body, r.ContentLength, 1<<20, func(int64) error { return nil }, func(int64) {})
			n, e := fake.Get("last").Get("reads").Int(), fake.Get("last").Get("ends").Int()
			r.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			last := byte((size - 1) * 7 & 0xff)
			if len(b) != size || b[size-1] != last {
				t.Fatalf("read %d bytes; want %d, the last %d", len(b), size, last)
			}
			if tc.length && (r.ContentLength != size || r.Header["etag"] != `"x"`) {
				t.Errorf("length %d, etag %q; want %d, %q", r.ContentLength, r.Header["etag"], size, `"x"`)
			}
			if n != tc.reads || e != tc.ends {
				t.Errorf("%d reads, %d of them the end; want %d, %d", n, e, tc.reads, tc.ends)
			}
		})
	}
}
