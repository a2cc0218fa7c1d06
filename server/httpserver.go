package server

import (
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"time"
)

// Limits bound what one connection may cost the server.
type Limits struct {
	ReadHeader time.Duration // a client that stalls mid-header is dropped after this
	Read       time.Duration // whole request; requests have no bodies
	Write      time.Duration // whole answer: the cell listing (~9 MB) on a slow link
	Idle       time.Duration // keep-alive between requests
	MaxHeader  int           // request line + headers, bytes
	Shutdown   time.Duration // grace for in-flight answers on SIGINT/SIGTERM
	MaxConns   int           // open connections at once; more are refused (LimitListener)
}

// DefaultLimits suit a public server; requests are tiny GETs.
func DefaultLimits() Limits {
	return Limits{
		ReadHeader: 10 * time.Second,
		Read:       30 * time.Second,
		Write:      5 * time.Minute,
		Idle:       2 * time.Minute,
		MaxHeader:  16 << 10,
		Shutdown:   10 * time.Second,
		MaxConns:   defaultMaxConns(),
	}
}

// NewHTTPServer wraps h in an http.Server with lim's timeouts; errorLog takes
// net/http's own complaints (nil: the standard logger).
func NewHTTPServer(h http.Handler, lim Limits, errorLog *log.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: lim.ReadHeader,
		ReadTimeout:       lim.Read,
		WriteTimeout:      lim.Write,
		IdleTimeout:       lim.Idle,
		MaxHeaderBytes:    lim.MaxHeader,
		ErrorLog:          errorLog,
		// Let "OPTIONS *" reach the handler, which answers 405 like any
		// other method but GET and HEAD; net/http would answer 200.
		DisableGeneralOptionsHandler: true,
	}
}

// Serve answers on ln until ctx ends, then shuts down gracefully: no new
// connections, in-flight answers get up to grace to finish, then the rest are
// cut. It returns nil after a shutdown asked for by ctx.
func Serve(ctx context.Context, srv *http.Server, ln net.Listener, grace time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err // the listener failed; nothing to shut down
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		// Past the grace, cutting stragglers is the shutdown asked for.
		err = srv.Close()
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
