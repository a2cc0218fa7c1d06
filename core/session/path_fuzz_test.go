package session

import (
	"bytes"
	"context"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"acambient/core/ambient"
)

// A -path file that is not one: each error names the file, the line, and
// for JSON that does not parse, the byte in the line.
func TestReadPathErrors(t *testing.T) {
	portal, cell := fixture(t)
	h, _ := newHost(t, portal, cell, true)
	ok := `{"t":0,"player":"0x80800024/100,100,10"}` + "\n"
	for _, tc := range []struct {
		in, err string
	}{
		{ok + `{"t":1,"player":"0x80800024/100,100,10"`, `p.jsonl line 2, byte 39: unexpected end of JSON input`},
		{ok + `{"t":1,,"player":""}`, `p.jsonl line 2, byte 8: invalid character ','`},
		{"\n\n" + `{"t":-1}`, `p.jsonl line 3: "t" -1: want seconds ≥ 0`},
		{`{"t":-0.001,"player":"0x80800024/100,100,10"}`, `p.jsonl line 1: "t" -0.001: want seconds ≥ 0`},
		{`{"t":"1"}`, `p.jsonl line 1: json: cannot unmarshal string into Go struct field pathLine.t of type float64`},
		{`{"t":1e999}`, `p.jsonl line 1: json: cannot unmarshal number 1e999`},
		{`[1,2]`, `p.jsonl line 1: json: cannot unmarshal array`},
		{ok + `{"t":2,"player":"nowhere"}`, `p.jsonl line 2: player: position "nowhere"`},
		{`{"t":2,"camera":"0x80800024/1,2,3/north"}`, `p.jsonl line 1: camera: position "0x80800024/1,2,3/north": heading`},
		{`{"t":2,"player":"90N,90E"}`, `p.jsonl line 1: player: `},
		{ok + ok + strings.Repeat(" ", 70000) + "\n", `p.jsonl line 3: bufio.Scanner: token too long`},
	} {
		steps, err := h.readPath(strings.NewReader(tc.in), "p.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
			t.Errorf("%.60q: %d steps, %v\nwant an error beginning %q", tc.in, len(steps), err, tc.err)
		}
	}
}

// pathErr is how every error of readPath over "p.jsonl" begins.
var pathErr = regexp.MustCompile(`^p\.jsonl line ([1-9][0-9]*)(, byte [0-9]+)?: `)

// FuzzReadPath: any bytes give steps at finite times ≥ 0, one for each line
// that is not blank, or an error naming the file and a line the input has.
func FuzzReadPath(f *testing.F) {
	for _, s := range []string{
		"",
		`{"t":0,"player":"0x80800024/100,100,10"}`,
		"{\"t\":0,\"player\":\"0x80800024/100,100,10\"}\n\n{\"t\":2.5,\"camera\":\"0.55N,0.55E/90\"}\r\n",
		`{"player":"@24600,24600,12"}`,
		`{"t":1,"player":"0x80800024 [100 100 10]"}`,
		`{"t":-1}`, `{"t":"1"}`, `{"t":1,,}`, `{"t":1e999}`, `null`, `[]`, `{"t":0,"player":"90N,90E"}`,
		`{"t":0,"player":"0x80800024/100,100,10","player":"nowhere"}`,
	} {
		f.Add([]byte(s))
	}
	var h *Host
	f.Fuzz(func(t *testing.T, b []byte) {
		if h == nil { // one host for the process's inputs: its loads are cached
			portal, cell := fixture(t)
			var err error
			if h, err = New(context.Background(), portal, cell, Options{Config: ambient.DefaultConfig(), Sync: true}); err != nil {
				t.Fatal(err)
			}
		}
		lines := bytes.Count(b, []byte("\n")) + 1
		steps, err := h.readPath(bytes.NewReader(b), "p.jsonl")
		if err != nil {
			m := pathErr.FindStringSubmatch(err.Error())
			if m == nil {
				t.Fatalf("%q: error %q names no line of p.jsonl", b, err)
			}
			if n, _ := strconv.Atoi(m[1]); n > lines {
				t.Fatalf("%q: error %q names line %d of %d", b, err, n, lines)
			}
			return
		}
		filled := 0
		for _, l := range bytes.Split(b, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				filled++
			}
		}
		if len(steps) != filled {
			t.Fatalf("%q: %d steps from %d lines that are not blank", b, len(steps), filled)
		}
		for _, st := range steps {
			if !(st.T >= 0) || math.IsInf(st.T, 0) {
				t.Fatalf("%q: a step at t = %v", b, st.T)
			}
		}
	})
}
