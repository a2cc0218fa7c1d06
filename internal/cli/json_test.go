package cli

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestPlainNumbers(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"gain":1e-07,"db":-50}`, `{"gain":0.0000001,"db":-50}`},
		{`[1.5e+21,-2E-3,3]`, `[1500000000000000000000,-0.002,3]`},
		{`{"name":"1e-07 stays","x":0.25}`, `{"name":"1e-07 stays","x":0.25}`},
		{`{"q":"a\"1e5","v":1e5}`, `{"q":"a\"1e5","v":100000}`},
	}
	for _, c := range cases {
		if got := string(plainNumbers([]byte(c.in))); got != c.want {
			t.Errorf("plainNumbers(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestWriteJSONFloat32(t *testing.T) {
	var buf bytes.Buffer
	if err := writeJSON(&buf, map[string]float32{"v": 1e-8}, false); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "{\"v\":0.00000001}\n" {
		t.Fatalf("got %q", got)
	}
}

func TestWriteJSONNaNIsAClearError(t *testing.T) {
	var buf bytes.Buffer
	err := writeJSON(&buf, map[string]float32{"v": float32(math.NaN())}, true)
	if err == nil || !strings.Contains(err.Error(), "NaN") || buf.Len() != 0 {
		t.Fatalf("err = %v, wrote %q", err, buf.String())
	}
}
