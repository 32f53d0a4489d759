package scan

import (
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strconv"
	"strings"
)

// Shard is one share of a scan spread over N machines: K from 0 to N-1 (the
// JOB_COMPLETION_INDEX of a Kubernetes Indexed Job, a Slurm array index from 0, a
// CI matrix index). The zero Shard is the whole scan.
type Shard struct {
	K, N int
}

// ParseShard reads "K/N".
func ParseShard(s string) (Shard, error) {
	ks, ns, ok := strings.Cut(s, "/")
	k, kerr := strconv.Atoi(strings.TrimSpace(ks))
	n, nerr := strconv.Atoi(strings.TrimSpace(ns))
	switch {
	case !ok || kerr != nil || nerr != nil:
		return Shard{}, fmt.Errorf("mcpsleuth: --shard must be K/N such as 0/4 (share K of N, K from 0 to N-1), not %q", s)
	case n < 1:
		return Shard{}, fmt.Errorf("mcpsleuth: --shard %q: N must be at least 1", s)
	case k < 0 || k >= n:
		return Shard{}, fmt.Errorf("mcpsleuth: --shard %q: K must be from 0 to %d", s, n-1)
	}
	return Shard{K: k, N: n}, nil
}

// Whole reports whether the shard is the whole scan.
func (s Shard) Whole() bool { return s.N <= 1 }

// Has reports whether the file with this path relative to its scan root belongs
// to the shard: a hash of the path, so that every file lands in exactly one share
// whatever the machine, the mount point or the order of the walk.
func (s Shard) Has(rel string) bool {
	if s.Whole() {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(rel))
	return h.Sum64()%uint64(s.N) == uint64(s.K)
}

// Of keeps the inputs, skipped and unread entries and empty directories of the
// walk that belong to the shard, in their order.
func (s Shard) Of(w Walk) Walk {
	if s.Whole() {
		return w
	}
	var out Walk
	for _, in := range w.Inputs {
		if s.Has(in.Rel) {
			out.Inputs = append(out.Inputs, in)
		}
	}
	for _, sk := range w.Skipped {
		if s.Has(sk.Rel) {
			out.Skipped = append(out.Skipped, sk)
		}
	}
	for _, sk := range w.Unread {
		if s.Has(sk.Rel) {
			out.Unread = append(out.Unread, sk)
		}
	}
	// An empty directory is named by one share only, that of its own path.
	for _, root := range w.Empty {
		if s.Has(filepath.ToSlash(filepath.Clean(root))) {
			out.Empty = append(out.Empty, root)
		}
	}
	return out
}
