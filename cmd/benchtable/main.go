// Command benchtable times mcpsleuth against jq on generated captures of every
// profile of cmd/capturegen and prints the tables docs/performance.md quotes, in
// Markdown: MB/s, peak RSS (the child's rusage maxrss), CPU time over wall time, and
// the speed-up over a jq filter that reads and parses the same file, all measured in
// the same run. It is a development tool (task bench), not part of mcpsleuth.
//
//	go run ./cmd/benchtable -bin ./bin/mcpsleuth
//	go run ./cmd/benchtable -bin ./bin/mcpsleuth -profiles healthy,har -size 64M -runs 1
//	go run ./cmd/benchtable -bin ./bin/mcpsleuth -cores 1,2 -gomaxprocs16
//
// For each profile it uses the capture DIR/mcpsleuth-bench-PROFILE-SIZE.EXT (.har for
// har, .log for gosdk-log, .jsonl for the others), and writes a missing one first with
// go run ./cmd/capturegen (so run it from the module's root); delete a capture to have
// it written again. Then it times, in rounds (every command once per round, so that a
// drift of the machine's speed hits all of them alike), the profile's jq filter and
// mcpsleuth check --fail-on never --format json with every rule. Each command's median
// run is reported, and its speed-up over jq is the median of the per-round ratios.
//
// Flags:
//
//	-bin PATH        the mcpsleuth binary (default ./bin/mcpsleuth)
//	-profiles LIST   comma-separated profiles (default: all seven: healthy,
//	                 payload-heavy, base64, tiny-sessions, har, bare, gosdk-log)
//	-size SIZE       the size of the captures, as capturegen -size takes it (default 1G)
//	-dir DIR         where the captures live (default /tmp)
//	-runs N          rounds (default 3)
//	-extras          with the healthy profile, also time check without the schema
//	                 rules, with one cheap rule, on gzip and zstd copies of the capture
//	                 (written beside it once), and zcat and wc -l (default true)
//	-cores LIST      also run each check pinned to the first N cores for each N of the
//	                 list (taskset -c 0, taskset -c 0,1, ...; GOMAXPROCS=N), and print
//	                 the speed-up of each N over 1 core (e.g. -cores 1,2)
//	-gomaxprocs16    also run each check with GOMAXPROCS=16 pinned to 2 cores, and print
//	                 its CPU time over that of GOMAXPROCS=2 on the same 2 cores
//	-redact          also run each check with --redact, and print its wall time over
//	                 the check's (default true)
//	-file PATH       the capture to use for the healthy profile instead of a generated one
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A capture format: the extension its profiles are written with, and the jq filter
// that reads and parses every message in it, keeping the initialize requests.
type format struct {
	ext    string
	jqArgs []string // jq's flags and filter; the file follows
}

var (
	envelopeJSONL = format{".jsonl", []string{"-c", `select(.msg.method=="initialize")`}}
	bareJSONL     = format{".jsonl", []string{"-c", `select(.method=="initialize")`}}
	// Every request body, and every response body: JSON as is, an event stream by its
	// data lines (priming events have no JSON and are skipped).
	harDocument = format{".har", []string{"-c", `.log.entries[] | (.request.postData.text // empty), (.response.content.text // empty | if startswith("{") then . else (split("\n")[] | select(startswith("data: {")) | ltrimstr("data: ")) end) | fromjson | select(.method=="initialize")`}}
	goSDKLog    = format{".log", []string{"-R", "-c", `select(startswith("read: ") or startswith("write: ")) | ltrimstr("read: ") | ltrimstr("write: ") | fromjson | select(.method=="initialize")`}}
)

// The profiles of cmd/capturegen, in its order, and their formats.
var profiles = []struct {
	name   string
	format format
}{
	{"healthy", envelopeJSONL},
	{"payload-heavy", envelopeJSONL},
	{"base64", envelopeJSONL},
	{"tiny-sessions", envelopeJSONL},
	{"har", harDocument},
	{"bare", bareJSONL},
	{"gosdk-log", goSDKLog},
}

func formatOf(profile string) (format, bool) {
	for _, p := range profiles {
		if p.name == profile {
			return p.format, true
		}
	}
	return format{}, false
}

type command struct {
	name string
	args []string
	env  []string // added to the environment
	// bytes is the input size the command reads (decompressed for compressed inputs).
	bytes int64
	// cores is the number of cores the command is pinned to (0: not pinned); procs
	// its GOMAXPROCS (0: not set).
	cores, procs int
	// every marks the unpinned check with every rule: the command of the summary.
	every bool
	// redact marks the same check with --redact: its cost is its wall time over
	// the every command's.
	redact bool
	// needs is the program without which the command is not run (default: args[0]).
	needs string
}

type measure struct {
	wall, cpu time.Duration
	rssKiB    int64
	exit      int
}

// result is what one profile measured.
type result struct {
	profile string
	size    int64
	cmds    []command
	runs    [][]measure // runs[i]: command i, round by round
	// floorKiB is the maxrss of a child that uses almost nothing: benchtable's own
	// peak RSS, which Linux passes to every child it starts (the child runs in the
	// parent's address space until it execs, and exec keeps the high-water mark:
	// golang/go#32054). No child's peak RSS reads lower.
	floorKiB int64
}

func main() {
	bin := flag.String("bin", "./bin/mcpsleuth", "the mcpsleuth binary")
	list := flag.String("profiles", strings.Join(profileNames(), ","), "comma-separated capturegen profiles")
	size := flag.String("size", "1G", "the size of the captures (capturegen -size)")
	dir := flag.String("dir", "/tmp", "where the captures live (written when missing)")
	runs := flag.Int("runs", 3, "rounds (the median run is reported)")
	extras := flag.Bool("extras", true, "with the healthy profile, also time schema rules off, one cheap rule, gzip and zstd inputs, zcat and wc -l")
	coresFlag := flag.String("cores", "", "also run each check pinned to the first N cores for each N of this list (e.g. 1,2)")
	procs16 := flag.Bool("gomaxprocs16", false, "also run each check with GOMAXPROCS=16 pinned to 2 cores, against GOMAXPROCS=2")
	redact := flag.Bool("redact", true, "also run each check with --redact, and print its wall time over the check's")
	file := flag.String("file", "", "the capture to use for the healthy profile instead of a generated one")
	flag.Parse()

	names := strings.Split(*list, ",")
	for _, name := range names {
		if _, ok := formatOf(name); !ok {
			fail(fmt.Errorf("unknown profile %q (one of %s)", name, strings.Join(profileNames(), ", ")))
		}
	}
	cores, err := parseCores(*coresFlag)
	if err != nil {
		fail(err)
	}
	if *procs16 && runtime.NumCPU() < 2 {
		fail(errors.New("-gomaxprocs16 pins to 2 cores; this machine has 1"))
	}
	if (len(cores) > 0 || *procs16) && !installed("taskset") {
		fail(errors.New("-cores and -gomaxprocs16 need taskset"))
	}
	if *runs < 1 {
		fail(errors.New("-runs must be at least 1"))
	}

	var results []result
	for _, name := range names {
		f, _ := formatOf(name)
		path := filepath.Join(*dir, "mcpsleuth-bench-"+name+"-"+*size+f.ext)
		if name == "healthy" && *file != "" {
			path = *file
		} else if err := generate(name, *size, path); err != nil {
			fail(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			fail(err)
		}
		r := result{profile: name, size: st.Size()}
		r.cmds = commands(*bin, name, path, st.Size(), f, name == "healthy" && *extras, cores, *procs16, *redact)
		r.floorKiB = run(command{args: []string{"true"}}).rssKiB
		r.runs = measureRounds(r.cmds, *runs, path)
		results = append(results, r)
	}
	printTables(results, *size, *runs, *bin, names, cores, *procs16)
}

func profileNames() []string {
	var names []string
	for _, p := range profiles {
		names = append(names, p.name)
	}
	return names
}

func parseCores(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var cores []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > runtime.NumCPU() {
			return nil, fmt.Errorf("bad -cores entry %q: a number of cores from 1 to %d", f, runtime.NumCPU())
		}
		if !slices.Contains(cores, n) {
			cores = append(cores, n)
		}
	}
	slices.Sort(cores)
	return cores, nil
}

// cpuList is taskset's list of the first n cores.
func cpuList(n int) string {
	switch n {
	case 1:
		return "0"
	case 2:
		return "0,1"
	}
	return fmt.Sprintf("0-%d", n-1)
}

// generate writes the capture of a profile unless it exists.
func generate(profile, size, path string) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	fmt.Fprintf(os.Stderr, "benchtable: writing %s (go run ./cmd/capturegen -profile %s -size %s)\n", path, profile, size)
	start := time.Now()
	tmp := path + ".partial"
	cmd := exec.Command("go", "run", "./cmd/capturegen", "-profile", profile, "-size", size, "-o", tmp)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("capturegen -profile %s: %w", profile, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "benchtable: wrote %s in %.1f s\n", path, time.Since(start).Seconds())
	return nil
}

// commands are what one profile times: jq first (the baseline of the ratios).
func commands(bin, profile, file string, size int64, f format, extras bool, cores []int, procs16, redact bool) []command {
	check := func(extra ...string) []string {
		return append(append([]string{bin, "check", "--fail-on", "never", "--format", "json"}, extra...), file)
	}
	cmds := []command{
		{name: "jq (filter in the notes)", args: append(append([]string{"jq"}, f.jqArgs...), file), bytes: size},
		{name: "mcpsleuth check --format json (every rule)", args: check(), bytes: size, every: true},
	}
	if redact {
		cmds = append(cmds, command{name: "same, --redact", args: check("--redact"), bytes: size, redact: true})
	}
	if extras {
		gz, zst := file+".gz", file+".zst"
		for _, c := range [][]string{{gz, "gzip", "-6", "-c"}, {zst, "zstd", "-3", "-q", "-c"}} {
			if !installed(c[1]) {
				continue
			}
			if err := compressOnce(file, c[0], c[1:]...); err != nil {
				fail(err)
			}
		}
		schemaRules := "MCP4001,MCP4002,MCP4003,MCP4004,MCP4005,MCP1010"
		every := check()
		cmds = append(cmds,
			command{name: "same, schema rules off", args: check("--disable", schemaRules), bytes: size},
			command{name: "same, one cheap rule (--enable MCP3004)", args: check("--enable", "MCP3004"), bytes: size},
			command{name: "same, every rule, gzip input", args: append(slices.Clone(every[:len(every)-1]), gz), bytes: size, needs: "gzip"},
			command{name: "same, every rule, zstd input", args: append(slices.Clone(every[:len(every)-1]), zst), bytes: size, needs: "zstd"},
			command{name: "zcat (gzip baseline)", args: []string{"sh", "-c", "gzip -dc " + gz + " > /dev/null"}, bytes: size, needs: "gzip"},
			command{name: "wc -l", args: []string{"wc", "-l", file}, bytes: size},
		)
	}
	pinned := func(n, procs int) command {
		return command{
			name:  fmt.Sprintf("check, GOMAXPROCS=%d, taskset -c %s", procs, cpuList(n)),
			args:  append([]string{"taskset", "-c", cpuList(n)}, check()...),
			env:   []string{"GOMAXPROCS=" + strconv.Itoa(procs)},
			bytes: size, cores: n, procs: procs,
		}
	}
	for _, n := range cores {
		cmds = append(cmds, pinned(n, n))
	}
	if procs16 {
		if !slices.Contains(cores, 2) {
			cmds = append(cmds, pinned(2, 2))
		}
		cmds = append(cmds, pinned(2, 16))
	}
	return cmds
}

// measureRounds runs every command once a round, runs rounds.
func measureRounds(cmds []command, rounds int, file string) [][]measure {
	out := make([][]measure, len(cmds))
	for range rounds {
		for i, c := range cmds {
			needs := c.needs
			if needs == "" {
				needs = c.args[0]
			}
			if installed(needs) {
				// Before each run: a VM's memory reclaim (DAMON) evicts file pages
				// seconds after their last read, so the capture is read back into
				// the page cache first (at several GB/s; not timed).
				warm(file)
				out[i] = append(out[i], run(c))
			}
		}
	}
	return out
}

// warm reads a file to its end, into the page cache.
func warm(file string) {
	if f, err := os.Open(file); err == nil {
		io.Copy(io.Discard, f)
		f.Close()
	}
}

func installed(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// run runs a command once.
func run(c command) measure {
	cmd := exec.Command(c.args[0], c.args[1:]...)
	cmd.Stdout, cmd.Stderr = nil, nil // /dev/null
	if len(c.env) > 0 {
		cmd.Env = append(os.Environ(), c.env...)
	}
	start := time.Now()
	err := cmd.Run()
	m := measure{wall: time.Since(start)}
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			fail(fmt.Errorf("%s: %w", strings.Join(c.args, " "), err))
		}
		m.exit = exit.ExitCode()
		fmt.Fprintf(os.Stderr, "benchtable: %s exited with %d\n", strings.Join(c.args, " "), m.exit)
	}
	m.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	m.rssKiB = peakRSSKiB(cmd.ProcessState)
	return m
}

// median is the run of median wall time.
func median(ms []measure) measure {
	ms = slices.Clone(ms)
	sort.Slice(ms, func(i, j int) bool { return ms[i].wall < ms[j].wall })
	return ms[len(ms)/2]
}

// medianRatio is the median over the rounds of f(round a, round b).
func medianRatio(a, b []measure, f func(a, b measure) float64) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var rs []float64
	for k := range a {
		rs = append(rs, f(a[k], b[k]))
	}
	sort.Float64s(rs)
	return rs[len(rs)/2]
}

func wallRatio(a, b measure) float64 { return float64(a.wall) / float64(b.wall) }
func cpuRatio(a, b measure) float64  { return float64(a.cpu) / float64(b.cpu) }

func printTables(results []result, size string, runs int, bin string, names []string, cores []int, procs16 bool) {
	fmt.Printf("Captures of -size %s (capturegen), %d round%s on %d CPUs, %s: the median run of each command; speed-up over jq: the median of the per-round ratios of jq's wall time to the command's.\n\n", size, runs, plural(runs), runtime.NumCPU(), bin)
	fmt.Println("| profile | command | MB/s | peak RSS | CPU/wall | speed-up over jq |")
	fmt.Println("| --- | --- | ---: | ---: | ---: | ---: |")
	type worst struct {
		profile string
		ratio   float64
		rssKiB  int64
	}
	var low, high worst
	exits, floors := false, false
	for _, r := range results {
		for i, c := range r.cmds {
			if c.cores > 0 {
				continue // in the table of cores
			}
			label := fmt.Sprintf("%s (%d MiB)", r.profile, r.size>>20)
			if i > 0 {
				label = r.profile
			}
			if len(r.runs[i]) == 0 {
				fmt.Printf("| %s | `%s` | not installed | | | |\n", label, c.name)
				continue
			}
			m := median(r.runs[i])
			ratio := medianRatio(r.runs[0], r.runs[i], wallRatio)
			name := c.name
			if bad := exitOf(r.runs[i]); bad != 0 {
				name += fmt.Sprintf(" (exit %d!)", bad)
				exits = true
			}
			rss := fmt.Sprintf("%d MiB", m.rssKiB>>10)
			if m.rssKiB <= r.floorKiB+512 {
				rss = fmt.Sprintf("≤ %d MiB", (r.floorKiB+1023)>>10)
				floors = true
			}
			fmt.Printf("| %s | `%s` | %.0f | %s | %.2f | %s |\n", label, name,
				float64(c.bytes)/1e6/m.wall.Seconds(), rss, m.cpu.Seconds()/m.wall.Seconds(), ratioText(ratio))
			if c.every {
				if ratio > 0 && (low.profile == "" || ratio < low.ratio) {
					low = worst{profile: r.profile, ratio: ratio}
				}
				if m.rssKiB > high.rssKiB {
					high = worst{profile: r.profile, rssKiB: m.rssKiB}
				}
			}
		}
	}
	fmt.Printf("\nWorst speed-up over jq of check (every rule): %s (%s). Worst peak RSS of check (every rule): %d MiB (%s).\n", ratioText(low.ratio), low.profile, high.rssKiB>>10, high.profile)
	printRedactCost(results)

	if len(cores) > 0 || procs16 {
		printCores(results, cores, procs16)
	}

	fmt.Println("\nNotes:")
	fmt.Println()
	fmt.Println("- The jq baselines read and parse every message of the capture and keep the initialize requests:")
	var filters []string
	of := map[string][]string{} // a filter's profiles
	for _, name := range names {
		f, _ := formatOf(name)
		filter := "jq " + strings.Join(f.jqArgs[:len(f.jqArgs)-1], " ") + " '" + f.jqArgs[len(f.jqArgs)-1] + "' FILE"
		if of[filter] == nil {
			filters = append(filters, filter)
		}
		of[filter] = append(of[filter], name)
	}
	for _, filter := range filters {
		fmt.Printf("  - %s: `%s`\n", strings.Join(of[filter], ", "), filter)
	}
	fmt.Println("- MB/s is of the capture as written (decompressed, for the gzip and zstd inputs); peak RSS is the child's maxrss.")
	if floors {
		fmt.Println("- A peak RSS of ≤ N MiB is benchtable's own peak RSS: Linux makes it the floor of every child's maxrss (the child runs in the parent's address space until it execs, and exec keeps the high-water mark; golang/go#32054). The command used at most that.")
	}
	if exits {
		fmt.Println("- A command marked exit N failed in at least one round: its figures do not measure the work.")
	}
}

// printCores prints the table of the pinned runs of check (every rule).
// printRedactCost prints what --redact costs on each profile: the median of the
// per-round ratios of its wall time to the check's, and the worst of them.
func printRedactCost(results []result) {
	var costs []string
	worst, worstProfile := 0.0, ""
	for _, r := range results {
		every, redact := -1, -1
		for i, c := range r.cmds {
			switch {
			case c.every:
				every = i
			case c.redact:
				redact = i
			}
		}
		if every < 0 || redact < 0 {
			continue
		}
		cost := medianRatio(r.runs[redact], r.runs[every], wallRatio)
		costs = append(costs, fmt.Sprintf("%s %.2fx", r.profile, cost))
		if cost > worst {
			worst, worstProfile = cost, r.profile
		}
	}
	if len(costs) > 0 {
		fmt.Printf("\nCost of --redact (its wall time over the check's, median of the per-round ratios): %s. Worst: %.2fx (%s).\n", strings.Join(costs, ", "), worst, worstProfile)
	}
}

func printCores(results []result, cores []int, procs16 bool) {
	fmt.Println()
	head := "| profile |"
	rule := "| --- |"
	for _, n := range cores {
		head += fmt.Sprintf(" %d core%s MB/s |", n, plural(n))
		rule += " ---: |"
	}
	for _, n := range cores {
		if n > 1 && slices.Contains(cores, 1) {
			head += fmt.Sprintf(" %d-core speed-up over 1 core |", n)
			rule += " ---: |"
		}
	}
	if procs16 {
		head += " CPU time of GOMAXPROCS=16 over GOMAXPROCS=2 (2 cores) |"
		rule += " ---: |"
	}
	fmt.Println(head)
	fmt.Println(rule)
	for _, r := range results {
		pinned := func(n, procs int) int {
			for i, c := range r.cmds {
				if c.cores == n && c.procs == procs {
					return i
				}
			}
			return -1
		}
		row := "| " + r.profile + " |"
		for _, n := range cores {
			i := pinned(n, n)
			m := median(r.runs[i])
			row += fmt.Sprintf(" %.0f |", float64(r.size)/1e6/m.wall.Seconds())
		}
		for _, n := range cores {
			if n > 1 && slices.Contains(cores, 1) {
				row += " " + ratioText(medianRatio(r.runs[pinned(1, 1)], r.runs[pinned(n, n)], wallRatio)) + " |"
			}
		}
		if procs16 {
			row += " " + ratioText(medianRatio(r.runs[pinned(2, 16)], r.runs[pinned(2, 2)], cpuRatio)) + " |"
		}
		fmt.Println(row)
	}
	fmt.Println("\nPinned runs: taskset -c 0 (1 core), taskset -c 0,1 (2 cores), GOMAXPROCS set to the core count unless said; ratios are medians of the per-round ratios (wall time for the speed-ups, CPU time for GOMAXPROCS).")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func ratioText(r float64) string {
	if r <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2fx", r)
}

// exitOf is the first non-zero exit status of the runs, or 0.
func exitOf(ms []measure) int {
	for _, m := range ms {
		if m.exit != 0 {
			return m.exit
		}
	}
	return 0
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "benchtable: %v\n", err)
	os.Exit(2)
}

// compressOnce writes a compressed copy of src with a compressor's command line
// (reading src, writing to stdout) unless an up-to-date copy exists. The compressors
// run as children, so that benchtable's own peak RSS, which every child's maxrss
// starts from, stays small.
func compressOnce(src, dst string, argv ...string) error {
	s, err := os.Stat(src)
	if err != nil {
		return err
	}
	if d, err := os.Stat(dst); err == nil && d.ModTime().After(s.ModTime()) {
		return nil
	}
	tmp := dst + ".partial"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], append(argv[1:], src)...)
	cmd.Stdout, cmd.Stderr = out, os.Stderr
	err = cmd.Run()
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	return os.Rename(tmp, dst)
}
