package record

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"time"
)

// LoopsBack reports whether upstream is the proxy itself, listening at ln: the
// same port, at the address it listens on (or, listening on every address, at
// one of this machine's). Every request would come back to the proxy and be
// forwarded again, without end (issue 29: one request, 16,000 records in 4 s).
func LoopsBack(upstream *url.URL, ln net.Addr) bool {
	tcp, ok := ln.(*net.TCPAddr)
	if !ok {
		return false
	}
	port := upstream.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[upstream.Scheme]
	}
	if port != strconv.Itoa(tcp.Port) {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, upstream.Hostname())
	if err != nil {
		return false // a name that does not resolve here is no address of ours
	}
	for _, ip := range ips {
		if tcp.IP.Equal(ip.IP) || (tcp.IP.IsUnspecified() && isLocal(ip.IP)) {
			return true
		}
	}
	return false
}

// isLocal reports whether ip is an address of this machine.
func isLocal(ip net.IP) bool {
	if ip.IsLoopback() || ip.IsUnspecified() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}
