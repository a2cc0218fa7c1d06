//go:build js

package jsawait

import (
	"syscall/js"
	"testing"
)

// Await hands back what a promise settles with: a value, or its rejection
// in words, whatever JavaScript rejected with.
func TestAwait(t *testing.T) {
	eval := func(src string) js.Value { return js.Global().Call("eval", src) }
	v, err := Await(eval(`Promise.resolve(42)`))
	if err != nil || v.Int() != 42 {
		t.Errorf("resolved 42: %v, %v", v, err)
	}
	v, err = Await(eval(`new Promise(r => setTimeout(() => r("later"), 1))`))
	if err != nil || v.String() != "later" {
		t.Errorf("resolved on a later turn: %v, %v", v, err)
	}
	for _, tc := range []struct{ src, want string }{
		{`Promise.reject(new TypeError("fetch failed", {cause: new Error("connect ECONNREFUSED")}))`, "TypeError: fetch failed (connect ECONNREFUSED)"},
		{`Promise.reject(new RangeError("too far"))`, "RangeError: too far"},
		{`Promise.reject("plain words")`, "plain words"},
		{`Promise.reject()`, "<undefined>"},
	} {
		if _, err := Await(eval(tc.src)); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.src, err, tc.want)
		}
	}
}
