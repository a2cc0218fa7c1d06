//go:build unix

package server

import "syscall"

// defaultMaxConns is 1000 connections, or fewer when the descriptor limit
// leaves less than that with room for the dat and www files and the runtime
// (Go raises the soft limit to the hard one at startup).
func defaultMaxConns() int {
	const want, spare = 1000, 64
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur >= want+spare {
		return want
	}
	return max(int(rl.Cur)/2, 1)
}
