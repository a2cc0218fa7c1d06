package soak

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestSummarize: the closing figures of a made-up half hour: the sample
// nearest 5 minutes is the baseline, the wasm's memory is end ÷ baseline,
// the Go heap and the caches' bytes are the peak of the last 5 minutes ÷
// the peak of the first 5; gaps count from the first sample; a return
// that fetched counts; warnings and the faults' console lines do not.
func TestSummarize(t *testing.T) {
	var lines []string
	for k := 0; k <= 60; k++ { // every 30 s for 30 minutes
		wasm := 40 << 20
		if k > 10 {
			wasm = 46 << 20
		}
		live := 15 << 20
		if k == 3 {
			live = 20 << 20 // the first 5 minutes' peak
		}
		if k == 58 {
			live = 22 << 20 // the last 5 minutes' peak
		}
		lines = append(lines, fmt.Sprintf(`{"kind":"sample","t":%d,"phase":"soak","stats":{"go":{"live":%d},"wasmMemory":%d,`+
			`"held":{"waveBytes":1000,"keptBytes":%d},"portal":{"cached":500},"cell":{"cached":0},"mixer":{"cached":0}},"tap":{"gaps":%d}}`,
			100+30*k, live, wasm, 100*k, 5+k/10))
	}
	lines = append(lines,
		`{"kind":"jump","t":200,"name":"river","return":false,"requests":9,"equal":true}`,
		`{"kind":"jump","t":290,"name":"river","return":true,"since":90,"requests":0,"equal":true}`,
		`{"kind":"jump","t":380,"name":"coast","return":true,"since":90,"requests":2,"equal":false}`,
		`{"kind":"console","t":300,"phase":"soak","type":"error","text":"boom"}`,
		`{"kind":"console","t":310,"phase":"soak","type":"warning","text":"meh"}`,
		`{"kind":"console","t":320,"phase":"fault:offline","type":"error","text":"offline"}`)
	res, p := parsed(t, lines)
	s := p.Summarize(res)
	if s.At5 == nil || s.At5.T != 400 || s.End.T != 1900 || s.Minutes != 30 {
		t.Fatalf("baseline at %v, end at %v over %v min; want 400 s, 1900 s, 30 min", s.At5.T, s.End.T, s.Minutes)
	}
	held := func(k float64) float64 { return 1500 + 100*k }
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"wasm ratio", s.WasmRatio, 46.0 / 40},
		{"Go live ratio", s.GoLiveRatio, 22.0 / 20},
		{"held ratio", s.HeldRatio, held(60) / held(10)},
		{"gaps", float64(s.Gaps), 6},
		{"gaps a minute", s.GapsPerMinute, 0.2},
	} {
		if d := c.got - c.want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if s.Jumps != 3 || s.Equal != 2 || s.Returns != 2 || s.ReturnsFetching != 1 || s.ReturnRequests != 2 {
		t.Errorf("jumps %d equal %d returns %d fetching %d (%d requests); want 3, 2, 2, 1 (2)",
			s.Jumps, s.Equal, s.Returns, s.ReturnsFetching, s.ReturnRequests)
	}
	if len(s.ConsoleErrors) != 1 || s.ConsoleErrors[0].Text != "boom" {
		t.Errorf("console errors %+v; want the soak's one error", s.ConsoleErrors)
	}
}

// TestGapsAfter: each gap counts for the last event before it within
// GapWindow (a later event wins over an earlier one still in the window),
// a gap with none is the walk's, and a fault phase's gaps do not count.
func TestGapsAfter(t *testing.T) {
	lines := []string{
		`{"kind":"jump","t":100,"name":"river"}`,
		`{"kind":"gap","t":100.5,"phase":"soak","frames":256}`, // the jump's
		`{"kind":"toggle","t":102,"volume":0.5}`,
		`{"kind":"gap","t":103,"phase":"soak","frames":128}`, // the volume's, not the jump's
		`{"kind":"gap","t":106,"phase":"soak","frames":128}`, // the volume's: 4 s after it
		`{"kind":"gap","t":108,"phase":"soak","frames":128}`, // nothing within 5 s: the walk's
		`{"kind":"toggle","t":200,"enabled":false}`,
		`{"kind":"toggle","t":203,"enabled":true}`,
		`{"kind":"gap","t":203.2,"phase":"soak","frames":384}`,
		`{"kind":"switch","t":300,"to":"export"}`,
		`{"kind":"gap","t":301,"phase":"soak","frames":128}`,
		`{"kind":"gap","t":99,"phase":"soak","frames":128}`,           // before the jump: the walk's
		`{"kind":"gap","t":301,"phase":"fault:offline","frames":128}`, // not the soak's
	}
	_, p := parsed(t, lines)
	got := p.gapsAfter()
	want := map[string]int{"jump": 1, "volume": 2, "walk": 2, "enable on": 1, "switch": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("gaps after %v, want %v", got, want)
	}
}

// parsed makes a Result of soak.mjs lines and parses it.
func parsed(t *testing.T, lines []string) (*Result, *Parsed) {
	t.Helper()
	res := &Result{}
	for _, l := range lines {
		var k Line
		if err := json.Unmarshal([]byte(l), &k); err != nil {
			t.Fatal(err)
		}
		k.Raw = json.RawMessage(l)
		res.Lines = append(res.Lines, k)
	}
	p, err := res.Parse()
	if err != nil {
		t.Fatal(err)
	}
	return res, p
}
