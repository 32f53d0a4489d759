//go:build unix

package scan_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/scan"
)

// TestOrderedEmitsInInputOrder: whatever order the work finishes in, results are
// emitted in index order, each once, and no more than 2*jobs are done or under
// way and not emitted.
func TestOrderedEmitsInInputOrder(t *testing.T) {
	for _, jobs := range []int{1, 2, 3, 8, 100} {
		t.Run(fmt.Sprint(jobs), func(t *testing.T) {
			const n = 200
			var inFlight, most atomic.Int64
			var emitted []int
			work := func(i int) string {
				raise(&most, inFlight.Add(1))
				// Later indexes tend to finish first.
				time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
				return fmt.Sprintf("result %d", i)
			}
			scan.Ordered(n, jobs, scan.Window{}, work, func(i int, v string) {
				if v != fmt.Sprintf("result %d", i) {
					t.Errorf("index %d got %q", i, v)
				}
				inFlight.Add(-1)
				emitted = append(emitted, i)
			})
			for i, got := range emitted {
				if got != i {
					t.Fatalf("emitted out of order: %v", emitted[:i+1])
				}
			}
			if len(emitted) != n {
				t.Fatalf("emitted %d of %d", len(emitted), n)
			}
			if limit := int64(2 * min(jobs, n)); most.Load() > limit {
				t.Errorf("%d results held at once, more than %d", most.Load(), limit)
			}
		})
	}
}

// raise sets most to cur when cur is larger.
func raise(most *atomic.Int64, cur int64) {
	for {
		m := most.Load()
		if cur <= m || most.CompareAndSwap(m, cur) {
			return
		}
	}
}

// TestOrderedRunsJobsAtOnce: with 4 jobs, 4 pieces of work run at the same time
// (each waits until all 4 have started; one job at a time would never finish).
func TestOrderedRunsJobsAtOnce(t *testing.T) {
	const jobs = 4
	var started atomic.Int64
	done := make(chan struct{})
	go func() {
		scan.Ordered(jobs, jobs, scan.Window{}, func(int) int {
			started.Add(1)
			for started.Load() < jobs {
				runtime.Gosched()
			}
			return 0
		}, func(int, int) {})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("only %d of %d jobs ran at once", started.Load(), jobs)
	}
}

// TestOrderedWindowPassesALongPiece: while one long piece of work runs, the other
// job goes on with the next ones, up to the window (a window of twice the jobs
// left it idle after three).
func TestOrderedWindowPassesALongPiece(t *testing.T) {
	const n, jobs, most = 40, 2, 16
	var finished atomic.Int64
	scan.Ordered(n, jobs, scan.Window{Most: most}, func(i int) int {
		if i == 0 {
			deadline := time.Now().Add(10 * time.Second)
			for finished.Load() < most-1 {
				if time.Now().After(deadline) {
					t.Errorf("while the first piece ran, only %d others finished; want %d", finished.Load(), most-1)
					break
				}
				time.Sleep(time.Millisecond)
			}
			return i
		}
		finished.Add(1)
		return i
	}, func(int, int) {})
}

// TestOrderedWindowBudget: the weight of what is held stays within the budget,
// except for the jobs' own work (a piece heavier than the budget still runs).
func TestOrderedWindowBudget(t *testing.T) {
	for _, c := range []struct {
		weight, budget int64
		want           int64
	}{{10, 40, 4}, {100, 40, 2}, {0, 0, 50}} {
		var held, most atomic.Int64
		scan.Ordered(200, 2, scan.Window{Most: 50, Weight: func(int) int64 { return c.weight }, Budget: c.budget}, func(i int) int {
			raise(&most, held.Add(1))
			time.Sleep(time.Duration(rand.IntN(100)) * time.Microsecond)
			return i
		}, func(int, int) { held.Add(-1) })
		if most.Load() > c.want {
			t.Errorf("weight %d, budget %d: %d results held at once, more than %d", c.weight, c.budget, most.Load(), c.want)
		}
	}
}

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want scan.Shard
		err  string
	}{
		{"0/1", scan.Shard{K: 0, N: 1}, ""},
		{"2/4", scan.Shard{K: 2, N: 4}, ""},
		{"4/4", scan.Shard{}, `mcpsleuth: --shard "4/4": K must be from 0 to 3`},
		{"-1/4", scan.Shard{}, `mcpsleuth: --shard "-1/4": K must be from 0 to 3`},
		{"1/0", scan.Shard{}, `mcpsleuth: --shard "1/0": N must be at least 1`},
		{"1", scan.Shard{}, `mcpsleuth: --shard must be K/N such as 0/4 (share K of N, K from 0 to N-1), not "1"`},
		{"a/b", scan.Shard{}, `mcpsleuth: --shard must be K/N such as 0/4 (share K of N, K from 0 to N-1), not "a/b"`},
	} {
		got, err := scan.ParseShard(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("ParseShard(%q) error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseShard(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

// TestShardsPartition: every path belongs to exactly one of N shards, the same
// one each time, and the shares are not lopsided.
func TestShardsPartition(t *testing.T) {
	var w scan.Walk
	for i := range 3000 {
		rel := fmt.Sprintf("2026/%02d/%02d/session-%d.jsonl", i%12+1, i%28+1, i)
		w.Inputs = append(w.Inputs, scan.Input{Path: "/archive/" + rel, Rel: rel})
	}
	w.Skipped = []scan.Skipped{{Path: "/archive/pipe.jsonl", Rel: "pipe.jsonl", Why: "a named pipe"}}
	for _, n := range []int{1, 2, 3, 7} {
		seen := map[string]int{}
		skipped := 0
		for k := range n {
			part := scan.Shard{K: k, N: n}.Of(w)
			if n > 1 && (len(part.Inputs) < len(w.Inputs)/n/2 || len(part.Inputs) > 2*len(w.Inputs)/n) {
				t.Errorf("shard %d/%d holds %d of %d files", k, n, len(part.Inputs), len(w.Inputs))
			}
			if !keepsOrder(w.Inputs, part.Inputs) {
				t.Errorf("shard %d/%d changed the order of the files", k, n)
			}
			for _, in := range part.Inputs {
				seen[in.Rel]++
				if !(scan.Shard{K: k, N: n}).Has(in.Rel) {
					t.Errorf("%s in shard %d/%d, which does not have it", in.Rel, k, n)
				}
			}
			skipped += len(part.Skipped)
		}
		if len(seen) != len(w.Inputs) {
			t.Errorf("N=%d: %d files in the shards, want %d", n, len(seen), len(w.Inputs))
		}
		for rel, c := range seen {
			if c != 1 {
				t.Errorf("N=%d: %s in %d shards", n, rel, c)
			}
		}
		if skipped != 1 {
			t.Errorf("N=%d: the skipped entry is in %d shards", n, skipped)
		}
	}
}

// keepsOrder reports whether part is a subsequence of all.
func keepsOrder(all, part []scan.Input) bool {
	i := 0
	for _, in := range all {
		if i < len(part) && part[i].Path == in.Path {
			i++
		}
	}
	return i == len(part)
}

// TestExpandWalksLikeCheck: a directory's capture files come sorted by path (as
// sort.Strings orders them), nested ones included; names that are not captures
// are left out; files and "-" given by name are inputs as they are.
func TestExpandWalksLikeCheck(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.jsonl", "a/z.log", "a.jsonl", "a/b/c.har.gz", "c.jsonl.zst", "notes.md", "x.json", "y.ndjson", "z.txt"} {
		mkfile(t, filepath.Join(dir, name), "{}\n")
	}
	w := scan.Expand([]string{dir, "-", filepath.Join(dir, "notes.md")})
	var got []string
	for _, in := range w.Inputs {
		got = append(got, in.Path)
	}
	var want []string
	for _, name := range []string{"b.jsonl", "a/z.log", "a.jsonl", "a/b/c.har.gz", "c.jsonl.zst", "x.json", "y.ndjson", "z.txt"} {
		want = append(want, filepath.Join(dir, name))
	}
	sort.Strings(want)
	want = append(want, "-", filepath.Join(dir, "notes.md"))
	if !slices.Equal(got, want) {
		t.Errorf("Expand:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if w.Inputs[0].Rel != "a.jsonl" || w.Inputs[1].Rel != "a/b/c.har.gz" || !w.Inputs[0].Walked {
		t.Errorf("first inputs: %+v %+v", w.Inputs[0], w.Inputs[1])
	}
	if w.Inputs[0].Size != 3 {
		t.Errorf("size of a.jsonl: %d", w.Inputs[0].Size)
	}
	if last := w.Inputs[len(w.Inputs)-1]; last.Walked {
		t.Errorf("a file given by name is not walked: %+v", last)
	}
	if len(w.Skipped) != 0 {
		t.Errorf("skipped: %+v", w.Skipped)
	}
}

// TestExpandFollowsDirectorySymlinksOnce: a symlink to a directory outside the
// root is left unread and said, unless the selection follows (--follow): then it
// is walked; one to a directory walked already is named, not walked twice; one
// back up the tree is a loop, named; the walk goes on past all of them.
func TestExpandFollowsDirectorySymlinksOnce(t *testing.T) {
	outside := t.TempDir()
	mkfile(t, filepath.Join(outside, "o.jsonl"), "{}\n")
	dir := t.TempDir()
	mkfile(t, filepath.Join(dir, "real", "r.jsonl"), "{}\n")
	mkfile(t, filepath.Join(dir, "zz.jsonl"), "{}\n")
	for link, target := range map[string]string{"a-link": "real", "out": outside, "ext.jsonl": filepath.Join(outside, "o.jsonl"), "real/up": "..", "self.jsonl": "self.jsonl"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	stay := scan.Expand([]string{dir})
	var got []string
	for _, in := range stay.Inputs {
		got = append(got, in.Rel)
	}
	if want := []string{"real/r.jsonl", "zz.jsonl"}; !slices.Equal(got, want) {
		t.Errorf("inputs %q, want %q", got, want)
	}
	realOutside, _ := filepath.EvalSymlinks(outside)
	if len(stay.Unread) != 2 || stay.Unread[0].Rel != "ext.jsonl" || stay.Unread[0].Why != "a symlink out of the directory walked, to "+filepath.Join(realOutside, "o.jsonl")+" (--follow follows it)" ||
		stay.Unread[1].Rel != "out" || stay.Unread[1].Why != "a symlink out of the directory walked, to "+realOutside+" (--follow follows it)" {
		t.Errorf("unread %+v, want the links out named", stay.Unread)
	}
	w := scan.ExpandWith([]string{dir}, scan.Selection{Follow: true})
	got = nil
	for _, in := range w.Inputs {
		got = append(got, in.Rel)
	}
	if want := []string{"ext.jsonl", "out/o.jsonl", "real/r.jsonl", "zz.jsonl"}; !slices.Equal(got, want) {
		t.Errorf("inputs with Follow %q, want %q", got, want)
	}
	var skipped []string
	for _, sk := range w.Skipped {
		skipped = append(skipped, sk.Rel+": "+sk.Why)
	}
	realDir, _ := filepath.EvalSymlinks(filepath.Join(dir, "real"))
	realRoot, _ := filepath.EvalSymlinks(dir)
	want := []string{
		"a-link: a symlink to " + realDir + ", walked already",
		"real/up: a symlink loop: it leads back to " + realRoot + ", a directory it is inside",
		"self.jsonl: a symlink loop: too many levels of symbolic links",
	}
	if !slices.Equal(skipped, want) {
		t.Errorf("skipped:\n%s\nwant:\n%s", strings.Join(skipped, "\n"), strings.Join(want, "\n"))
	}
}

// TestExpandSkipsWhatIsNotARegularFile: pipes, sockets-like and device links are
// named and never opened (opening a FIFO would block the walk).
func TestExpandSkipsWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	mkfile(t, filepath.Join(dir, "ok.jsonl"), "{}\n")
	mkfifo(t, filepath.Join(dir, "pipe.jsonl"))
	mkfifo(t, filepath.Join(dir, "other-pipe")) // not a capture name: not named
	if err := os.Symlink("/dev/null", filepath.Join(dir, "null.log")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("gone", filepath.Join(dir, "gone.jsonl")); err != nil {
		t.Fatal(err)
	}
	done := make(chan scan.Walk)
	go func() { done <- scan.Expand([]string{dir}) }()
	var w scan.Walk
	select {
	case w = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the walk blocked")
	}
	if len(w.Inputs) != 1 || w.Inputs[0].Rel != "ok.jsonl" {
		t.Errorf("inputs %+v", w.Inputs)
	}
	var skipped []string
	for _, sk := range w.Skipped {
		skipped = append(skipped, sk.Rel+": "+sk.Why)
	}
	want := []string{
		"gone.jsonl: a symlink to nothing: no such file or directory",
		"null.log: a symlink to a character device: only regular files are read from a directory",
		"pipe.jsonl: a named pipe (FIFO): only regular files are read from a directory",
	}
	if !slices.Equal(skipped, want) {
		t.Errorf("skipped:\n%s\nwant:\n%s", strings.Join(skipped, "\n"), strings.Join(want, "\n"))
	}
}

// TestExpandGlobs: a pattern that names no file is expanded; its matches are
// taken as a walk takes files (directories walked, regular files only); a
// pattern without a match stays as given (opening it says it does not exist).
func TestExpandGlobs(t *testing.T) {
	dir := t.TempDir()
	mkfile(t, filepath.Join(dir, "2026-11", "a.jsonl"), "{}\n")
	mkfile(t, filepath.Join(dir, "2026-12", "b.jsonl"), "{}\n")
	mkfile(t, filepath.Join(dir, "2025-01", "c.jsonl"), "{}\n")
	mkfile(t, filepath.Join(dir, "2026-x.jsonl"), "{}\n")
	mkfifo(t, filepath.Join(dir, "2026-pipe.jsonl"))
	w := scan.Expand([]string{filepath.Join(dir, "2026-*"), filepath.Join(dir, "none-*")})
	var got []string
	for _, in := range w.Inputs {
		got = append(got, strings.TrimPrefix(in.Path, dir+"/"))
	}
	if want := []string{"2026-11/a.jsonl", "2026-12/b.jsonl", "2026-x.jsonl", "none-*"}; !slices.Equal(got, want) {
		t.Errorf("inputs %q, want %q", got, want)
	}
	var skipped []string
	for _, sk := range w.Skipped {
		skipped = append(skipped, strings.TrimPrefix(sk.Path, dir+"/")+": "+sk.Why)
	}
	want := []string{"2026-pipe.jsonl: a named pipe (FIFO): only regular files are read from a pattern"}
	if !slices.Equal(skipped, want) {
		t.Errorf("skipped %q, want %q", skipped, want)
	}
}

func mkfile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExpandGoesOnPastAnUnlistableDirectory: a directory that cannot be listed is
// named and the walk goes on (root reads every directory: skipped there).
func TestExpandGoesOnPastAnUnlistableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root, which can list a directory without permissions: nothing to test")
	}
	dir := t.TempDir()
	mkfile(t, filepath.Join(dir, "a.jsonl"), "{}\n")
	mkfile(t, filepath.Join(dir, "locked", "b.jsonl"), "{}\n")
	mkfile(t, filepath.Join(dir, "z.jsonl"), "{}\n")
	if err := os.Chmod(filepath.Join(dir, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(dir, "locked"), 0o755)
	w := scan.Expand([]string{dir})
	if len(w.Inputs) != 2 || w.Inputs[0].Rel != "a.jsonl" || w.Inputs[1].Rel != "z.jsonl" {
		t.Errorf("inputs %+v", w.Inputs)
	}
	if len(w.Skipped) != 1 || w.Skipped[0].Why != "cannot list the directory: permission denied" || !w.Skipped[0].Failed {
		t.Errorf("skipped %+v", w.Skipped)
	}
}

// TestExpandNamesEmptyDirectories: a directory (given, or matched by a pattern)
// where the walk finds no capture to read is named in Empty, one with a capture
// is not, and of the shares of a spread scan exactly one names each.
func TestExpandNamesEmptyDirectories(t *testing.T) {
	dir := t.TempDir()
	empty, other, full := filepath.Join(dir, "empty"), filepath.Join(dir, "other"), filepath.Join(dir, "full")
	mkfile(t, filepath.Join(other, "notes.md"), "not a capture name\n")
	mkfile(t, filepath.Join(full, "a.jsonl"), "{}\n")
	if err := os.MkdirAll(filepath.Join(dir, "glob", "e1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	w := scan.Expand([]string{empty, other, full, filepath.Join(dir, "glob", "e*")})
	want := []string{empty, other, filepath.Join(dir, "glob", "e1")}
	if !slices.Equal(w.Empty, want) {
		t.Errorf("Empty = %q, want %q", w.Empty, want)
	}
	if len(w.Inputs) != 1 || w.Inputs[0].Path != filepath.Join(full, "a.jsonl") {
		t.Errorf("inputs: %+v", w.Inputs)
	}
	seen := map[string]int{}
	for k := range 3 {
		for _, root := range (scan.Shard{K: k, N: 3}).Of(w).Empty {
			seen[root]++
		}
	}
	for _, root := range want {
		if seen[root] != 1 {
			t.Errorf("%s is named by %d shares of 3, want 1", root, seen[root])
		}
	}
}

// TestExpandSelection: a walk says which files it left and why (a name that is
// not a capture's, an Exclude pattern on the file or its directory); Include
// reads files of other names; Exclude wins; files named as arguments are read
// whatever the patterns say; "**" spans directories.
func TestExpandSelection(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.jsonl", "notes.md", "run.out", "old/b.jsonl", "old/deep/c.jsonl", "keep/d.out", "keep/e.jsonl.bak"} {
		mkfile(t, filepath.Join(dir, f), "{}\n")
	}
	rels := func(list []scan.Skipped) []string {
		var out []string
		for _, sk := range list {
			out = append(out, sk.Rel+": "+sk.Why)
		}
		return out
	}
	inputs := func(w scan.Walk) []string {
		var out []string
		for _, in := range w.Inputs {
			out = append(out, in.Rel)
		}
		return out
	}
	w := scan.Expand([]string{dir})
	if got, want := inputs(w), []string{"a.jsonl", "old/b.jsonl", "old/deep/c.jsonl"}; !slices.Equal(got, want) {
		t.Errorf("inputs %q, want %q", got, want)
	}
	notCapture := "not a capture name (.jsonl, .ndjson, .log, .txt, .json, .har, each also with .gz or .zst)"
	if got, want := rels(w.Unread), []string{"keep/d.out: " + notCapture, "keep/e.jsonl.bak: " + notCapture, "notes.md: " + notCapture, "run.out: " + notCapture}; !slices.Equal(got, want) {
		t.Errorf("unread %q, want %q", got, want)
	}

	sel := scan.Selection{Include: []string{"*.out"}, Exclude: []string{"old/**/c.jsonl", "keep/*.out"}}
	if err := sel.Check(); err != nil {
		t.Fatal(err)
	}
	w = scan.ExpandWith([]string{dir, filepath.Join(dir, "keep", "d.out")}, sel)
	named := filepath.ToSlash(filepath.Join(dir, "keep", "d.out")) // a named file is its own root
	if got, want := inputs(w), []string{"a.jsonl", "old/b.jsonl", "run.out", named}; !slices.Equal(got, want) {
		t.Errorf("with %+v: inputs %q, want %q", sel, got, want)
	}
	if got, want := rels(w.Unread), []string{`keep/d.out: excluded by "keep/*.out"`, "keep/e.jsonl.bak: " + notCapture, "notes.md: " + notCapture, `old/deep/c.jsonl: excluded by "old/**/c.jsonl"`}; !slices.Equal(got, want) {
		t.Errorf("with %+v: unread %q, want %q", sel, got, want)
	}

	w = scan.ExpandWith([]string{dir}, scan.Selection{Exclude: []string{"old"}})
	if got, want := rels(w.Unread), []string{"keep/d.out: " + notCapture, "keep/e.jsonl.bak: " + notCapture, "notes.md: " + notCapture, `old: a directory excluded by "old"`, "run.out: " + notCapture}; !slices.Equal(got, want) {
		t.Errorf("a directory excluded: unread %q, want %q", got, want)
	}
	if err := (scan.Selection{Include: []string{"[a-"}}).Check(); err == nil || !strings.Contains(err.Error(), `"[a-" is not a valid pattern`) {
		t.Errorf("a bad pattern: %v", err)
	}
}
