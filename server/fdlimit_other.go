//go:build !unix

package server

// defaultMaxConns is 1000 connections where no descriptor limit applies.
func defaultMaxConns() int { return 1000 }
