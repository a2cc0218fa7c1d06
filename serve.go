package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"acambient/datfetch/datfile"
	"acambient/datfetch/source"
	"acambient/internal/cli"
	"acambient/server"
)

// decodeBudget bounds the bytes that record reads in progress hold at once
// (datfile.Budget): four of the largest compressed records a portal dat may
// hold (32 MiB stored plus 32 MiB declared, datfetch's caps), hundreds of
// real ones (the largest EoR record is under 2 MiB).
const decodeBudget = 256 << 20

// cmdServe is `serve` (docs/interfaces.md §1, §2): the records of the data flags and
// the page in -www, on -addr, until SIGINT or SIGTERM.
func cmdServe(_ *cli.Command, args []string) error {
	f, err := parseServeFlags(args)
	if err != nil {
		return err
	}
	logger := log.New(os.Stderr, "", log.LstdFlags)

	d, err := f.data.Open()
	if err != nil {
		return err
	}
	defer d.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.build {
		cli.EnsureWasm(ctx, f.www, logger)
	}
	go f.limitMemory(ctx, logger, d)
	h := f.handler(d, logger)
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	lim := server.DefaultLimits()
	ln = server.LimitListener(ln, lim.MaxConns)
	logger.Printf("serving %s; page files from %s", d.Name, f.www)
	fmt.Printf("open %s\n", openURL(ln.Addr()))
	err = server.Serve(ctx, server.NewHTTPServer(h, lim, logger), ln, lim.Shutdown)
	if err == nil {
		logger.Printf("stopped")
	}
	return err
}

// serveFlags are serve's flags, the data flags among them.
type serveFlags struct {
	addr, cors, www string
	build, verbose  bool
	zones           bool
	cacheMB         int64
	data            *cli.DataFlags
}

func parseServeFlags(args []string) (*serveFlags, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	f := &serveFlags{}
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&f.cors, "cors", "*", `Access-Control-Allow-Origin sent on every answer ("" sends none)`)
	fs.StringVar(&f.www, "www", cli.DefaultWWW(), "folder of the page files served under /")
	fs.BoolVar(&f.build, "build", true, "build www/ambient.wasm first when it is missing or older than its sources")
	fs.Int64Var(&f.cacheMB, "cache", server.DefaultCacheBytes>>20, "MiB of memory for the cache of records read from dat files, portal and cell together, its tables included (0: none)")
	fs.BoolVar(&f.verbose, "v", false, "log every request")
	fs.BoolVar(&f.zones, "zones", true, "answer /zones.json and /zones.png, the sound-zone layer of the records (as the zones command writes it), computed on the first ask and kept")
	f.data = cli.AddDataFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return f, nil
}

// cacheBytes is -cache in bytes; 0 (none) is 0.
func (f *serveFlags) cacheBytes() int64 { return max(f.cacheMB, 0) << 20 }

// handler is the server of d's records as the flags ask: one budget for
// both dats bounds the memory of record reads in progress, whatever mix of
// large or hostile records is asked for.
func (f *serveFlags) handler(d *cli.Data, logger *log.Logger) *server.Handler {
	budget := datfile.NewBudget(decodeBudget)
	for _, src := range []source.Lister{d.Portal, d.Cell} {
		if dat, ok := src.(*datfile.Dat); ok {
			dat.SetBudget(budget)
		}
	}
	cache := f.cacheBytes()
	if cache == 0 {
		cache = -1 // Options: negative is none, 0 the default
	}
	return server.New(server.Options{Portal: d.Portal, Cell: d.Cell, Name: d.Name, WWW: f.www, CORS: f.cors,
		CacheBytes: cache, Log: logger, Verbose: f.verbose, NoZones: !f.zones})
}

// limitMemory is limitMemory for the cache -cache asks for.
func (f *serveFlags) limitMemory(ctx context.Context, logger *log.Logger, d *cli.Data) {
	limitMemory(ctx, f.cacheBytes(), logger, d.Portal, d.Cell)
}

// gcHeadroom is the memory past what serve keeps that the limit allows:
// the runtime's own (~10 MiB: stacks, spans, buffers) and the garbage
// between collections, at ~30k requests/s of ~3 KB each (net/http's) a
// collection every ~0.15 s. The record cache and the indexes are
// pointer-free, so a collection marks little and takes ~2 ms. 12 MiB left
// the collector running nearly nonstop (CPU per request 30 → 59 µs).
const gcHeadroom = 24 << 20

// limitMemory bounds the process by what it must keep: the record cache,
// the dats' indexes (built now, in the background: serving needs them
// anyway), and gcHeadroom. Without it the collector's default pacing (GOGC
// 100) lets the heap grow to twice what is live: 64 MiB of cache became
// ~180 MiB resident. A GOMEMLIMIT the user set is left alone.
func limitMemory(ctx context.Context, cache int64, logger *log.Logger, srcs ...source.Lister) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	type indexed interface {
		Index(context.Context) error
		IndexBytes() int64
	}
	limit := cache + gcHeadroom
	// Until the indexes are built, their garbage (every node read once,
	// ~30 MB for 800k entries) is collected under the limit without them.
	debug.SetMemoryLimit(limit)
	for _, s := range srcs {
		x, ok := s.(indexed)
		if !ok {
			continue
		}
		if err := x.Index(ctx); err != nil {
			if ctx.Err() == nil {
				logger.Printf("index: %v (records are still served, by descending the tree)", err)
			}
			continue
		}
		limit += x.IndexBytes()
	}
	debug.SetMemoryLimit(limit)
}

// openURL is the address to print: a wildcard host becomes localhost.
func openURL(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return "http://" + a.String() + "/"
	}
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() {
		host = "localhost"
	}
	return fmt.Sprintf("http://%s/", net.JoinHostPort(host, fmt.Sprint(tcp.Port)))
}
