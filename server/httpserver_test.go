package server

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"testing"
	"time"
)

func TestGracefulShutdown(t *testing.T) {
	for _, tc := range []struct {
		name   string
		grace  time.Duration
		finish bool // the answer completes within the grace
	}{
		{"in-flight answer finishes", hangGuard, true}, // generous: finishing matters, not how soon
		{"grace runs out", 200 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started := make(chan struct{}, 1)
			release := make(chan struct{})
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				started <- struct{}{}
				select {
				case <-release:
					io.WriteString(w, "finished")
				case <-r.Context().Done():
				}
			})
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() {
				served <- Serve(ctx, NewHTTPServer(h, DefaultLimits(), log.New(io.Discard, "", 0)), ln, tc.grace)
			}()
			type result struct {
				body string
				err  error
			}
			got := make(chan result, 1)
			go func() {
				resp, err := http.Get("http://" + ln.Addr().String() + "/")
				if err != nil {
					got <- result{"", err}
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				got <- result{string(b), err}
			}()
			<-started
			cancel() // SIGINT
			// New connections are refused once shutdown begins.
			waitUntil(t, func() bool {
				c, err := net.DialTimeout("tcp", ln.Addr().String(), 100*time.Millisecond)
				if err == nil {
					c.Close()
				}
				return err != nil
			})
			if tc.finish {
				close(release)
				if r := <-got; r.err != nil || r.body != "finished" {
					t.Fatalf("in-flight request: %q %v", r.body, r.err)
				}
			} else if r := <-got; r.err == nil {
				t.Fatalf("the straggler was not cut: %q", r.body)
			}
			select {
			case err := <-served:
				if err != nil {
					t.Fatalf("Serve: %v", err)
				}
			case <-time.After(hangGuard):
				t.Fatal("Serve did not return")
			}
			if !tc.finish {
				close(release)
			}
		})
	}
}

// hangGuard bounds how long a test waits for what the code under test
// reports (an answer, a closed connection, a condition): only a hang takes
// so long, however loaded the machine. No test asserts a shorter time.
const hangGuard = time.Minute

// waitUntil polls cond until it holds, failing the test only after hangGuard.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not reached in %v", hangGuard)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
