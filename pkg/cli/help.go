package cli

import (
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/report"
)

// Help fits the terminal as every text view does (terminalWidth): the sections
// urfave/cli prints (NAME, USAGE, VERSION, DESCRIPTION, COMMANDS, OPTIONS), with
// each command's and flag's description wrapped under its column at word
// boundaries, the name and usage lines hanging under their text, and a
// description reflowed when a line of it is too wide.
//
// urfave/cli renders a command's help from its CustomHelpTemplate (the root's
// CustomRootCommandHelpTemplate) with the command as data; the template below
// calls the command's helpMetadata function, which lays the text out for the
// width of this run. No package-level printer of urfave/cli is replaced.

// helpMetadata is the key of a command's Metadata that holds its help renderer.
const helpMetadata = "help"

// helpTemplate hands the whole help text to the renderer in the command's Metadata.
const helpTemplate = `{{call (index .Metadata "` + helpMetadata + `") .}}`

// useWrappedHelp makes the help of cmd and of every command under it fit width.
func useWrappedHelp(cmd *cli.Command, width int) {
	render := func(c *cli.Command) string { return helpText(c, width) }
	_ = cmd.Walk(func(c *cli.Command) error {
		if c.Metadata == nil {
			c.Metadata = map[string]any{}
		}
		c.Metadata[helpMetadata] = render
		c.CustomHelpTemplate = helpTemplate
		if c == cmd {
			c.CustomRootCommandHelpTemplate = helpTemplate
		}
		return nil
	})
}

// helpIndent is the indent of a section's lines.
const helpIndent = "   "

// helpText is the help of cmd laid out for width columns.
func helpText(cmd *cli.Command, width int) string {
	root := cmd.Root() == cmd
	var b strings.Builder
	section := func(title string) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(title + ":\n")
	}

	section("NAME")
	if cmd.Usage != "" {
		lead := cmd.FullName() + " - " // the usage continues under itself
		b.WriteString(report.Wrap(helpIndent+lead+cmd.Usage, width, strings.Repeat(" ", len(lead))) + "\n")
	} else {
		b.WriteString(helpIndent + cmd.FullName() + "\n")
	}

	section("USAGE")
	usage := cmd.UsageText
	if usage == "" {
		usage = usageLine(cmd, root)
	}
	hang := strings.Repeat(" ", len(cmd.FullName())+1) // arguments continue under the arguments
	for _, line := range strings.Split(strings.TrimRight(usage, "\n"), "\n") {
		b.WriteString(report.Wrap(helpIndent+line, width, hang) + "\n")
	}

	if root && cmd.Version != "" && !cmd.HideVersion {
		section("VERSION")
		b.WriteString(helpIndent + cmd.Version + "\n")
	}
	if cmd.Category != "" && !root {
		section("CATEGORY")
		b.WriteString(helpIndent + cmd.Category + "\n")
	}
	if cmd.Description != "" {
		section("DESCRIPTION")
		b.WriteString(reflowText(cmd.Description, helpIndent, width))
	}
	// The root lists its commands by category, the built-in help among them;
	// a command with commands of its own lists those (as urfave/cli does).
	if root {
		if categories := cmd.VisibleCategories(); len(categories) > 0 {
			section("COMMANDS")
			writeCommands(&b, categories, width)
		}
	} else if commands := cmd.VisibleCommands(); len(commands) > 0 {
		section("COMMANDS")
		writeCommands(&b, []cli.CommandCategory{commandList(commands)}, width)
	}
	optionsTitle := "OPTIONS"
	if root {
		optionsTitle = "GLOBAL OPTIONS"
	}
	// Flags are listed by category (sorted by name, as urfave/cli does) when
	// any has one, else in their order.
	if categories := cmd.VisibleFlagCategories(); len(categories) > 0 {
		section(optionsTitle)
		writeFlagCategories(&b, categories, width)
	} else if flags := cmd.VisibleFlags(); len(flags) > 0 {
		section(optionsTitle)
		writeFlags(&b, helpIndent, flags, width)
	}
	if !root {
		if persistent := cmd.VisiblePersistentFlags(); len(persistent) > 0 {
			section("GLOBAL OPTIONS")
			writeFlags(&b, helpIndent, persistent, width)
		}
	}
	return b.String()
}

// usageLine is the USAGE line urfave/cli would print for cmd.
func usageLine(cmd *cli.Command, root bool) string {
	line := cmd.FullName()
	commands := len(cmd.VisibleCommands()) > 0
	switch {
	case root && len(cmd.VisibleFlags()) > 0:
		line += " [global options]"
	case !root && !commands && len(cmd.VisibleFlags()) > 0:
		line += " [options]"
	}
	if commands {
		line += " [command [command options]]"
	}
	if cmd.ArgsUsage != "" {
		line += " " + cmd.ArgsUsage
	} else if len(cmd.Arguments) > 0 {
		line += " [arguments...]"
	}
	return line
}

// writeCommands lists the commands, names in a column and each usage wrapped
// under its own column; a named category is a heading over its commands.
func writeCommands(b *strings.Builder, categories []cli.CommandCategory, width int) {
	column := 0
	for _, category := range categories {
		for _, c := range category.VisibleCommands() {
			column = max(column, twwidth.Width(strings.Join(c.Names(), ", ")))
		}
	}
	for _, category := range categories {
		indent := helpIndent
		if category.Name() != "" {
			b.WriteString("\n" + helpIndent + category.Name() + ":\n")
			indent += "  "
		}
		for _, c := range category.VisibleCommands() {
			b.WriteString(report.WrapColumns(indent+pad(strings.Join(c.Names(), ", "), column+2), c.Usage, width))
		}
	}
}

// commandList is commands as a category without a name.
type commandList []*cli.Command

func (commandList) Name() string                      { return "" }
func (l commandList) VisibleCommands() []*cli.Command { return l }

// writeFlagCategories lists the flags, a named category under its heading.
func writeFlagCategories(b *strings.Builder, categories []cli.VisibleFlagCategory, width int) {
	for _, category := range categories {
		if category.Name() != "" {
			b.WriteString(helpIndent + category.Name() + "\n\n")
		}
		writeFlags(b, helpIndent, category.Flags(), width)
	}
}

// writeFlags lists flags as urfave/cli names them ("--output FILE, -o FILE"),
// the names in a column and each description (with its default) wrapped under
// the description column, continuation lines indented to it. The column is as
// wide as the widest names that take at most two fifths of the line; wider
// names (a slice flag's "--enable string [ --enable string ]" on a narrow
// terminal) are a line of their own, their description under the column. When
// the column would leave a description fewer than 30 columns, every flag's
// names are a line of their own and its description is under them.
func writeFlags(b *strings.Builder, indent string, flags []cli.Flag, width int) {
	names := make([]string, len(flags))
	texts := make([]string, len(flags))
	widest := (width-len(indent))*2/5 - 2
	column := 0
	for i, f := range flags {
		names[i], texts[i] = flagColumns(f)
		if w := twwidth.Width(names[i]); w <= widest {
			column = max(column, w)
		}
	}
	column += 2 // the gap before the descriptions
	narrow := len(indent)+column > width-30
	under := strings.Repeat(" ", len(indent)+column)
	if narrow {
		under = indent + "   "
	}
	for i := range flags {
		if narrow || twwidth.Width(names[i]) > column-2 {
			b.WriteString(indent + names[i] + "\n")
			if texts[i] != "" {
				b.WriteString(report.WrapColumns(under, texts[i], width))
			}
			continue
		}
		b.WriteString(report.WrapColumns(indent+pad(names[i], column), texts[i], width))
	}
}

// flagColumns splits urfave/cli's text for a flag (FlagStringer: the names, a
// tab, the usage and default) into the two columns.
func flagColumns(f cli.Flag) (names, text string) {
	s := f.String()
	names, text, _ = strings.Cut(s, "\t")
	return strings.TrimSpace(names), strings.TrimSpace(strings.ReplaceAll(text, "\t", " "))
}

// pad pads s with spaces to n columns.
func pad(s string, n int) string {
	if w := twwidth.Width(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// reflowText indents every line of text and fits it to width. A paragraph
// (lines between blank lines) whose lines all fit is kept as written; else its
// lines at the paragraph's own indent are joined and wrapped at word boundaries,
// and a line indented deeper (an example) stays a line of its own, wrapped
// under itself when it is too wide.
func reflowText(text, indent string, width int) string {
	var b strings.Builder
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for start := 0; start < len(lines); {
		if strings.TrimSpace(lines[start]) == "" {
			b.WriteString("\n")
			start++
			continue
		}
		end := start
		for end < len(lines) && strings.TrimSpace(lines[end]) != "" {
			end++
		}
		writeParagraph(&b, lines[start:end], indent, width)
		start = end
	}
	return b.String()
}

// writeParagraph writes the lines of one paragraph of reflowText.
func writeParagraph(b *strings.Builder, lines []string, indent string, width int) {
	fits := true
	base := -1
	for _, line := range lines {
		fits = fits && !strings.Contains(report.Wrap(indent+line, width, ""), "\n")
		if n := leadingSpaces(line); base < 0 || n < base {
			base = n
		}
	}
	if fits {
		for _, line := range lines {
			b.WriteString(strings.TrimRight(indent+line, " ") + "\n")
		}
		return
	}
	var prose []string
	flush := func() {
		if len(prose) > 0 {
			b.WriteString(report.Wrap(indent+strings.Repeat(" ", base)+strings.Join(prose, " "), width, "") + "\n")
			prose = nil
		}
	}
	for _, line := range lines {
		if leadingSpaces(line) > base {
			flush()
			b.WriteString(report.Wrap(strings.TrimRight(indent+line, " "), width, "  ") + "\n")
			continue
		}
		prose = append(prose, strings.TrimSpace(line))
	}
	flush()
}

// leadingSpaces counts the spaces line starts with.
func leadingSpaces(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }
