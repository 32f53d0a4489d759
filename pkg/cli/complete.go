package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

// completionRequest is the last argument of every shell's completion request:
// the words before the cursor, then the word under it when it starts with "-",
// then this (the protocol of urfave/cli's scripts, which the bash script below
// keeps).
const completionRequest = "--generate-shell-completion"

// isCompletionRequest reports whether args (the program name first) ask for
// completions rather than a run.
func isCompletionRequest(args []string) bool {
	return len(args) > 1 && args[len(args)-1] == completionRequest
}

// answerCompletion makes every command answer the completion request args
// with complete, once urfave/cli has built the whole command tree (it adds the
// completion and help commands when it runs) and found the command the words
// name.
func answerCompletion(app *cli.Command, w io.Writer, args []string) {
	answer := func(_ context.Context, c *cli.Command) { complete(w, c.Root(), args) }
	var set func(*cli.Command)
	set = func(c *cli.Command) {
		c.ShellComplete = answer
		for _, sub := range c.Commands {
			set(sub)
		}
	}
	set(app)
	configure := app.ConfigureShellCompletionCommand
	app.ConfigureShellCompletionCommand = func(c *cli.Command) {
		if configure != nil {
			configure(c)
		}
		set(c)
	}
}

// complete answers a completion request: one candidate a line, "token:description"
// where a description helps (zsh and PowerShell show it; bash keeps the token).
// Nothing printed means "complete file names", which every script falls back to.
//
// The words before the cursor pick the command; then the last word decides:
// a flag that takes a value (--format, or --format= as one word or as bash
// splits it) is completed with its values; a word that starts with "-" with the
// command's flags; otherwise a command's subcommands, explain's rule IDs, or
// files.
func complete(w io.Writer, app *cli.Command, args []string) {
	words := args[1 : len(args)-1]
	cmd := app
	for i := 0; i < len(words)-1; i++ {
		word := words[i]
		if f := flagNamed(cmd, word); f != nil {
			if f.TakesValue() && !strings.Contains(word, "=") {
				i++ // its value
			}
			continue
		}
		if sub := subcommandNamed(cmd, word); sub != nil {
			cmd = sub
		}
	}
	last := ""
	if len(words) > 0 {
		last = words[len(words)-1]
		if sub := subcommandNamed(cmd, last); sub != nil && !strings.HasPrefix(last, "-") {
			cmd, last = sub, ""
		}
	}
	if last == "=" && len(words) > 1 { // bash splits --format=js into --format, =, js
		last = words[len(words)-2]
	}
	if name, typed, ok := strings.Cut(last, "="); ok && strings.HasPrefix(name, "-") {
		if f := flagNamed(cmd, name); f != nil {
			for _, v := range flagValues(cmd, f) {
				if strings.HasPrefix(v.token, typed) {
					fmt.Fprintln(w, candidate{name + "=" + v.token, v.about})
				}
			}
		}
		return
	}
	if f := flagNamed(cmd, last); f != nil && f.TakesValue() {
		for _, v := range flagValues(cmd, f) {
			fmt.Fprintln(w, v)
		}
		return
	}
	if strings.HasPrefix(last, "-") {
		for _, c := range flagCandidates(cmd) {
			if strings.HasPrefix(c.token, last) {
				fmt.Fprintln(w, c)
			}
		}
		return
	}
	for _, sub := range cmd.Commands {
		if !sub.Hidden && (cmd == app || sub.Name != "help") { // help is a command of the root only
			fmt.Fprintln(w, candidate{sub.Name, sub.Usage})
		}
	}
	if cmd.Name == "explain" {
		for _, c := range ruleCandidates() {
			fmt.Fprintln(w, c)
		}
	}
}

// candidate is one completion: what is inserted, and what it is.
type candidate struct{ token, about string }

func (c candidate) String() string {
	about, _, _ := strings.Cut(c.about, "\n")
	if about == "" {
		return c.token
	}
	if r := []rune(about); len(r) > maxAbout {
		about = string(r[:maxAbout-1]) + "…"
	}
	return c.token + ":" + about
}

// maxAbout is the longest description a candidate carries (zsh lists a
// candidate a line, the description beside it).
const maxAbout = 60

// flagNamed is c's flag that word names ("--format", "-o", "--format=json"), or nil.
func flagNamed(c *cli.Command, word string) documentedFlag {
	if !strings.HasPrefix(word, "-") {
		return nil
	}
	name, _, _ := strings.Cut(strings.TrimLeft(word, "-"), "=")
	for _, f := range c.Flags {
		if slices.Contains(f.Names(), name) {
			if df, ok := f.(documentedFlag); ok {
				return df
			}
		}
	}
	return nil
}

// documentedFlag is a flag that says whether it takes a value (every flag of
// urfave/cli does).
type documentedFlag interface {
	cli.Flag
	cli.DocGenerationFlag
}

// subcommandNamed is c's subcommand called word, or nil.
func subcommandNamed(c *cli.Command, word string) *cli.Command {
	for _, sub := range c.Commands {
		if sub.HasName(word) {
			return sub
		}
	}
	return nil
}

// flagCandidates are c's visible flags, long names as --name and one-letter
// aliases as -n, with --help.
func flagCandidates(c *cli.Command) []candidate {
	var out []candidate
	for _, f := range c.Flags {
		if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
			continue
		}
		usage := ""
		if df, ok := f.(cli.DocGenerationFlag); ok {
			usage = df.GetUsage()
		}
		for _, n := range f.Names() {
			dashes := "--"
			if len(n) == 1 {
				dashes = "-"
			}
			out = append(out, candidate{dashes + n, usage})
		}
	}
	return append(out, candidate{"--help", "show help"})
}

// flagValues are the values flag f of command c takes, from the lists the
// command itself checks them against; none for a flag whose value is a file,
// a number or free text (the shell then completes file names).
func flagValues(c *cli.Command, f documentedFlag) []candidate {
	var values []string
	switch f.Names()[0] {
	case "format":
		values = commandFormats(c.Name)
	case "input-format":
		values = append([]string{"auto"}, frame.Formats()...)
	case "color":
		values = colourModes
	case "fail-on":
		values = append(severityNames(), "never")
	case "min-severity":
		values = severityNames()
	case "perspective", "side":
		values = []string{"client", "server"}
	case "enable", "disable":
		return ruleCandidates()
	}
	out := make([]candidate, len(values))
	for i, v := range values {
		out[i] = candidate{token: v}
	}
	return out
}

// commandFormats are the --format values of the command called name.
func commandFormats(name string) []string {
	switch name {
	case "check":
		return checkFormats
	case "scan":
		return scanFormats
	case "diff":
		return report.DiffFormats
	case "stats":
		return statsFormats
	}
	return textOrJSON
}

// textOrJSON are the formats of the commands that print a table or its JSON.
var textOrJSON = []string{"text", "json"}

// colourModes are the values of --color.
var colourModes = []string{"auto", "always", "never"}

// severityNames are the severities, worst first.
func severityNames() []string {
	return []string{rule.SeverityError.String(), rule.SeverityWarning.String(), rule.SeverityInfo.String()}
}

// ruleCandidates are the rule IDs of the catalogue, each described by its name.
func ruleCandidates() []candidate {
	var out []candidate
	for _, r := range rules.All() {
		out = append(out, candidate{r.ID, r.Name})
	}
	return out
}

// bashScript completes mcpsleuth in bash with bash alone: urfave/cli's script
// needs the bash-completion package (_get_comp_words_by_ref) and fails on every
// Tab without it. It asks the binary the user typed, by the protocol above; bash
// splits --format=json at "=", which it passes on. No candidate: file names.
const bashScript = `# bash completion for mcpsleuth; needs nothing but bash.
# source <(mcpsleuth completion bash), or save it in ~/.local/share/bash-completion/completions/mcpsleuth
_mcpsleuth_complete() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local -a request=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
  if [[ $cur == "=" ]]; then
    request+=("=")
    cur=
  elif [[ $cur == -* ]]; then
    request+=("$cur")
  fi
  local IFS=$'\n' line
  local -a tokens=()
  for line in $("${COMP_WORDS[0]}" "${request[@]}" ` + completionRequest + ` 2>/dev/null); do
    tokens+=("${line%%:*}")
  done
  COMPREPLY=()
  if ((${#tokens[@]})); then
    COMPREPLY=($(compgen -W "${tokens[*]}" -- "$cur"))
  fi
}
complete -o bashdefault -o default -F _mcpsleuth_complete mcpsleuth
`

// useOwnBashScript makes `completion bash` print bashScript, and lets
// PowerShell's script be asked for by its name as well as pwsh.
func useOwnBashScript(completion *cli.Command, env Env) {
	if pwsh := subcommandNamed(completion, "pwsh"); pwsh != nil {
		pwsh.Aliases = append(pwsh.Aliases, "powershell")
	}
	if bash := subcommandNamed(completion, "bash"); bash != nil {
		bash.Action = func(context.Context, *cli.Command) error {
			_, err := io.WriteString(env.Stdout, bashScript)
			return err
		}
	}
}
