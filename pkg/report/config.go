package report

import "github.com/mcpsleuth/mcpsleuth/pkg/config"

// Config is the configuration a report was made under: what selected the rules
// and their severities, what was hidden and what fails the run, with where each
// setting came from. A report attached to a ticket then says what it does not
// show (a rule disabled by a .mcpsleuth.yaml in a parent directory, a lowered
// severity, a baseline).
type Config struct {
	// File is the configuration file that was read ("" when none was).
	File string `json:"file"`
	// Enable and Disable name the rules selected and left out.
	Enable  []string `json:"enable"`
	Disable []string `json:"disable"`
	// Severity gives rules the severity the file set (rule ID or name -> error,
	// warning or info).
	Severity map[string]string `json:"severity"`
	// FailOn and MinSeverity are the thresholds: what fails the run, what is
	// shown ("" for MinSeverity: everything).
	FailOn      string `json:"failOn"`
	MinSeverity string `json:"minSeverity"`
	// Options are the rules' options by name (MCP3008's "slow": "30s").
	Options map[string]string `json:"options"`
	// Suppress are the configuration's suppressions: what they match, why, and
	// the line of the file (each session notes how many findings it hid).
	Suppress []config.Suppression `json:"suppress"`
	// Baseline is the earlier report whose findings are not shown ("" when none).
	Baseline string `json:"baseline,omitempty"`
	// RulesRun of Rules in the catalogue ran.
	RulesRun int `json:"rulesRun"`
	Rules    int `json:"rules"`
	// From says where each setting came from: "flag", the file and line, or
	// "default" (by key: enable, disable, severity, fail-on, min-severity, and
	// each option).
	From map[string]string `json:"from"`
}
