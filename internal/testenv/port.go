package testenv

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// FreePort returns a loopback port that is free now, for a server a test is about to start.
//
// It is not the kernel's pick (listening on port 0): those come from the ephemeral range, the
// same range every outgoing connection draws its local port from, so between the check and the
// server's bind a database client connection could take it (a CI run failed on exactly that).
// Ports are drawn at random below the ephemeral range instead, never twice in one process, and
// checked bindable; test processes running in parallel draw independently from ~10,000 ports.
func FreePort() (int, error) {
	lo, hi := portRange()
	portsMu.Lock()
	defer portsMu.Unlock()
	for try := 0; try < 200; try++ {
		p := lo + rand.IntN(hi-lo)
		if portsGiven[p] {
			continue
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		l.Close()
		portsGiven[p] = true
		return p, nil
	}
	return 0, fmt.Errorf("no free loopback port in %d-%d", lo, hi)
}

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

// portRange is the ~10,000 ports just below the kernel's ephemeral range (32768 by default).
func portRange() (lo, hi int) {
	hi = 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 11024 {
				hi = n
			}
		}
	}
	return hi - 10000, hi
}

// AddrInUse reports whether a server failed because its port was taken, the one start failure a
// caller should retry on another port. Go and Meilisearch say "address already in use", Redis
// "Address already in use", MariaDB "Bind on TCP/IP port. Got error: 98".
func AddrInUse(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "address already in use") || strings.Contains(m, "eaddrinuse") ||
		strings.Contains(m, "bind on tcp/ip port")
}
