package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// writeJSON writes v as indented (or compact) JSON with every number as a
// plain decimal: docs/interfaces.md §0 asks for plain decimals, and encoding/json
// switches to exponent form below 1e-6 (a faint sound's gain, for one).
func writeJSON(w io.Writer, v any, indent bool) error {
	b, err := json.Marshal(v)
	if uv := (*json.UnsupportedValueError)(nil); errors.As(err, &uv) {
		return fmt.Errorf("the record holds a float JSON cannot represent (%s): its bytes are valid, but not printable as JSON", uv.Str)
	}
	if err != nil {
		return err
	}
	b = plainNumbers(b)
	if indent {
		var out bytes.Buffer
		if err := json.Indent(&out, b, "", "  "); err != nil {
			return err
		}
		b = out.Bytes()
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// plainNumbers rewrites number tokens written in exponent form (1e-07) as
// plain decimals (0.0000001), leaving strings untouched.
func plainNumbers(b []byte) []byte {
	if !bytes.ContainsAny(b, "eE") {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, b[i:min(j+1, len(b))]...)
			i = j + 1
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(b) && bytes.IndexByte([]byte("0123456789.eE+-"), b[j]) >= 0 {
				j++
			}
			tok := b[i:j]
			if bytes.ContainsAny(tok, "eE") {
				if f, err := strconv.ParseFloat(string(tok), 64); err == nil {
					tok = strconv.AppendFloat(nil, f, 'f', -1, 64)
				}
			}
			out = append(out, tok...)
			i = j
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}
