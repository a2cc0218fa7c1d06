package server

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// A server out of file descriptors stalls: accept fails, net/http backs off
// and retries, and every client waits in the backlog, while the dat and www
// files it has to open fail too. LimitListener keeps the open connections
// under a cap well inside the descriptor limit and answers the ones past it
// at once with 503 and a close, so overload shows as refused connections.
// (x/net/netutil.LimitListener instead stops accepting at the cap, which
// leaves the excess clients waiting in the kernel's backlog.)

// overloadAnswer is what a connection past the cap gets before the close.
const overloadAnswer = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n" +
	"Retry-After: 1\r\nConnection: close\r\nContent-Length: 34\r\n\r\ntoo many connections; retry later\n"

// LimitListener returns a listener that has at most max connections open
// at once (max ≤ 0: no limit).
func LimitListener(ln net.Listener, max int) net.Listener {
	if max <= 0 {
		return ln
	}
	return &limitListener{Listener: ln, max: int64(max)}
}

type limitListener struct {
	net.Listener
	max  int64
	open atomic.Int64
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max {
			return &limitConn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		// A fresh socket's send buffer takes the answer without blocking;
		// the deadline covers a peer that has shrunk its window to nothing.
		c.SetWriteDeadline(time.Now().Add(time.Second))
		c.Write([]byte(overloadAnswer))
		c.Close()
	}
}

// limitConn gives its slot back on the first Close.
type limitConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}
