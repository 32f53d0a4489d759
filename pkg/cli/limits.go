package cli

import (
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// limitFlags returns the flags that bound what one input may cost (memory near
// --max-line, time near the byte limits), so that a hostile input cannot take
// the machine.
func limitFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "max-line", Value: frame.Size(frame.DefaultMaxLine), Usage: "longest line or document entry read into memory; a longer one is reported (MCP0001) and skipped"},
		&cli.StringFlag{Name: "max-input", Value: frame.Size(frame.DefaultMaxInput), Usage: "most bytes read from one input as stored (none: no limit)"},
		&cli.StringFlag{Name: "max-decompressed", Value: frame.Size(frame.DefaultMaxDecompressed), Usage: "most bytes a gzip or zstd input may expand to (none: no limit)"},
	}
}

// raiseMemoryLimit raises the soft memory limit to want: only ever raised here,
// Main sets it, GOMEMLIMIT overrides it.
func raiseMemoryLimit(want int64) {
	if os.Getenv("GOMEMLIMIT") == "" && debug.SetMemoryLimit(-1) < want {
		debug.SetMemoryLimit(want)
	}
}

// applyLimits reads the limit flags into opt.
func applyLimits(c *cli.Command, opt *frame.Options) error {
	line, err := parseSize(c.String("max-line"), false)
	if err != nil {
		return usageErr("mcpsleuth: --max-line: %v", err)
	}
	if line > frame.MaxLineLimit {
		return usageErr("mcpsleuth: --max-line: %s is too large (at most %s)", c.String("max-line"), frame.Size(frame.MaxLineLimit))
	}
	opt.MaxLine = int(line)
	raiseMemoryLimit(softMemoryLimit(opt.MaxLine))
	if opt.MaxInput, err = parseSize(c.String("max-input"), true); err != nil {
		return usageErr("mcpsleuth: --max-input: %v", err)
	}
	if opt.MaxDecompressed, err = parseSize(c.String("max-decompressed"), true); err != nil {
		return usageErr("mcpsleuth: --max-decompressed: %v", err)
	}
	return nil
}

// parseSize reads a byte count: 512, 64K, 64KiB, 64M, 64MiB, 16G, 1T (binary
// units, case-insensitive). "none" (where allowed) is -1: no limit.
func parseSize(s string, noneAllowed bool) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "none" && noneAllowed {
		return -1, nil
	}
	t = strings.TrimSuffix(strings.TrimSuffix(t, "b"), "i")
	shift := 0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k':
			shift = 10
		case 'm':
			shift = 20
		case 'g':
			shift = 30
		case 't':
			shift = 40
		}
		if shift > 0 {
			t = strings.TrimSpace(t[:n-1])
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 {
		return 0, errSize(s, noneAllowed)
	}
	if n > (1<<62)>>shift {
		return 0, errSize(s, noneAllowed)
	}
	return n << shift, nil
}

func errSize(s string, noneAllowed bool) error {
	if noneAllowed {
		return fmt.Errorf("want a positive size such as 64MiB or 16G (or none), not %q", s)
	}
	return fmt.Errorf("want a positive size such as 64MiB or 16G, not %q", s)
}
