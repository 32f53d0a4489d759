package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/report"
)

// outputExtensions are the --output file endings that name a report format
// (issue 28): without --format, the format is the one the file's name says;
// with it, the two must agree. Longer endings come first (.sarif.json is
// SARIF, not JSON).
var outputExtensions = []struct{ ending, format string }{
	{".sarif.json", "sarif"},
	{".sarif", "sarif"},
	{".json", "json"},
	{".jsonl", "jsonl"},
	{".ndjson", "jsonl"},
	{".md", "markdown"},
	{".markdown", "markdown"},
	{".html", "html"},
	{".htm", "html"},
	{".xml", "junit"},
	{".txt", "text"},
}

// formatOfOutput is the format an --output path's ending names among the
// command's formats ("" when it names none of them, or the output is stdout).
func formatOfOutput(path string, formats []string) string {
	name := strings.ToLower(path)
	for _, e := range outputExtensions {
		if strings.HasSuffix(name, e.ending) {
			if slices.Contains(formats, e.format) {
				return e.format
			}
			return ""
		}
	}
	return ""
}

// formatFitsOutput reports whether --format may write to a file whose ending
// names the format named: that format, or one whose files are what the ending
// says too (lines in a .txt file, plain text; SARIF in a .json file, a JSON
// document, as many code scanning uploads name it).
func formatFitsOutput(format, named string) bool {
	switch {
	case format == named:
		return true
	case named == "text":
		return format == "lines"
	case named == "json":
		return format == "sarif" || format == "codequality"
	}
	return false
}

// parseReportOutput is parseOutput for the commands that write reports (check,
// scan), whose --format may be left out: the format is then the one the
// --output file's ending names, else piped when the report goes to a stdout
// that is not a terminal (a pipe, a file, CI; "" keeps the flag's default),
// else text. A --format that disagrees with the ending is a usage error that
// names both.
func parseReportOutput(env Env, c *cli.Command, piped string, formats []string) (output, error) {
	out, err := parseOutput(env, c, formats...)
	if err != nil {
		return out, err
	}
	toStdout := out.path == "" || out.path == "-"
	named := ""
	if !toStdout {
		named = formatOfOutput(out.path, formats)
	}
	switch {
	case c.IsSet("format"):
		if named != "" && !formatFitsOutput(out.format, named) {
			return out, usageErr("mcpsleuth: --format %s disagrees with --output %s, which names %s: leave one out or make them agree", out.format, report.Safe(out.path), named)
		}
	case named != "":
		out.format = named
	case toStdout && !env.StdoutIsTerminal && piped != "":
		out.format = piped
	}
	return out, nil
}

// sarifFlags are the flags of the SARIF log, for the commands that write one
// (check, scan).
func sarifFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "sarif-root", Usage: "SARIF: locate the inputs under `DIR` (the repository's checkout; default: the working directory) relative to it, as code scanning maps results to files; inputs elsewhere get absolute file URIs"},
		&cli.StringFlag{Name: "sarif-category", Value: "mcpsleuth", Usage: "SARIF: the analysis' category (automationDetails.id): code scanning keeps each category's results apart"},
	}
}

// sarifOptions reads the SARIF flags: the root made absolute.
func sarifOptions(c *cli.Command) (report.SARIFOptions, error) {
	root := c.String("sarif-root")
	if root == "" {
		root = "."
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return report.SARIFOptions{}, usageErr("mcpsleuth: --sarif-root %s: %v", report.Safe(root), err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return report.SARIFOptions{}, usageErr("mcpsleuth: --sarif-root %s is not a directory", report.Safe(root))
	}
	return report.SARIFOptions{Root: abs, Category: c.String("sarif-category")}, nil
}
