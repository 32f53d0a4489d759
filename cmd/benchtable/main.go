// Command benchtable times mcpsleuth against baselines on one capture and prints the
// table docs/performance.md quotes: MB/s, peak RSS, CPU time over wall time, and the
// ratio of each command's wall time to the jq filter's, all measured in the same run.
// Each command runs several times; the median run is reported. It is a development
// tool (task bench), not part of mcpsleuth.
//
//	go run ./cmd/benchtable -bin ./bin/mcpsleuth -file /tmp/mcpsleuth-bench.jsonl
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

type command struct {
	name string
	args []string
	// bytes is the input size the command reads (decompressed for compressed inputs).
	bytes int64
}

type measure struct {
	wall, cpu time.Duration
	rssKiB    int64
}

func main() {
	bin := flag.String("bin", "./bin/mcpsleuth", "the mcpsleuth binary")
	file := flag.String("file", "/tmp/mcpsleuth-bench.jsonl", "the capture (envelope JSONL); .gz and .zst copies are made beside it")
	runs := flag.Int("runs", 3, "runs per command (the median is reported)")
	flag.Parse()
	st, err := os.Stat(*file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchtable: %v\n", err)
		os.Exit(2)
	}
	size := st.Size()
	gz, zst := *file+".gz", *file+".zst"
	for _, c := range []struct {
		path  string
		write func(io.Writer) (io.WriteCloser, error)
	}{
		{gz, func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriterLevel(w, gzip.DefaultCompression) }},
		{zst, func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) }},
	} {
		if err := compressOnce(*file, c.path, c.write); err != nil {
			fmt.Fprintf(os.Stderr, "benchtable: %v\n", err)
			os.Exit(2)
		}
	}
	schemaRules := "MCP4001,MCP4002,MCP4003,MCP4004,MCP4005,MCP1010"
	check := func(extra ...string) []string {
		return append(append([]string{*bin, "check", "--fail-on", "never", "--format", "json"}, extra...), *file)
	}
	cmds := []command{
		{"wc -l", []string{"wc", "-l", *file}, size},
		{`jq -c 'select(.msg.method=="initialize")'`, []string{"jq", "-c", `select(.msg.method=="initialize")`, *file}, size},
		{"mcpsleuth check --format json (every rule)", check(), size},
		{"same, schema rules off", check("--disable", schemaRules), size},
		{"same, one cheap rule (--enable MCP3004)", check("--enable", "MCP3004"), size},
		{"same, every rule, gzip input", append(check()[:len(check())-1], gz), size},
		{"same, every rule, zstd input", append(check()[:len(check())-1], zst), size},
		{"zcat (gzip baseline)", []string{"sh", "-c", "gzip -dc " + gz + " > /dev/null"}, size},
	}
	// Warm the page cache.
	_ = exec.Command("cat", *file).Run()
	// Rounds: every command once per round, so that a drift of the machine's speed
	// hits all of them alike; each command's median run is reported, and its ratio
	// to jq is the median of the per-round ratios.
	runsOf := make([][]measure, len(cmds))
	missing := make([]bool, len(cmds))
	for i, c := range cmds {
		_, err := exec.LookPath(c.args[0])
		missing[i] = err != nil
	}
	for range *runs {
		for i, c := range cmds {
			if !missing[i] {
				runsOf[i] = append(runsOf[i], run(c.args))
			}
		}
	}
	results := make([]measure, len(cmds))
	ratios := make([]float64, len(cmds))
	for i := range cmds {
		if missing[i] {
			results[i].wall = -1
			continue
		}
		results[i] = median(runsOf[i])
		if !missing[1] {
			var rs []float64
			for k := range runsOf[i] {
				rs = append(rs, float64(runsOf[1][k].wall)/float64(runsOf[i][k].wall))
			}
			sort.Float64s(rs)
			ratios[i] = rs[len(rs)/2]
		}
	}
	fmt.Printf("%s, %d MiB, %d rounds (median run; speed-up over jq: median of the per-round ratios)\n\n", filepath.Base(*file), size>>20, *runs)
	fmt.Println("| command | MB/s | peak RSS | CPU/wall | speed-up over jq |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: |")
	for i, c := range cmds {
		m := results[i]
		if m.wall < 0 {
			fmt.Printf("| `%s` | not installed | | | |\n", c.name)
			continue
		}
		ratio := "n/a"
		if ratios[i] > 0 {
			ratio = fmt.Sprintf("%.2fx", ratios[i])
		}
		fmt.Printf("| `%s` | %.0f | %d MiB | %.2f | %s |\n", c.name,
			float64(c.bytes)/1e6/m.wall.Seconds(), m.rssKiB>>10, m.cpu.Seconds()/m.wall.Seconds(), ratio)
	}
}

// run runs a command once.
func run(args []string) measure {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = nil, nil // /dev/null
	start := time.Now()
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			fmt.Fprintf(os.Stderr, "benchtable: %s: %v\n", strings.Join(args, " "), err)
			os.Exit(2)
		}
	}
	m := measure{wall: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.rssKiB = ru.Maxrss
	}
	return m
}

// median is the run of median wall time.
func median(ms []measure) measure {
	ms = append([]measure(nil), ms...)
	sort.Slice(ms, func(i, j int) bool { return ms[i].wall < ms[j].wall })
	return ms[len(ms)/2]
}

// compressOnce writes a compressed copy of src unless an up-to-date one exists.
func compressOnce(src, dst string, open func(io.Writer) (io.WriteCloser, error)) error {
	s, err := os.Stat(src)
	if err != nil {
		return err
	}
	if d, err := os.Stat(dst); err == nil && d.ModTime().After(s.ModTime()) {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer out.Close()
	w, err := open(out)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, in); err != nil {
		return err
	}
	return w.Close()
}
