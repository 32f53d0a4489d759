package scan

import (
	"fmt"
	"path"
	"strings"
)

// Selection says which files a walk reads beyond the capture names
// (CaptureExtensions): Include globs read walked files whatever their name,
// Exclude globs leave walked files and whole directories unread (Exclude wins).
// A pattern without a slash matches a file's or directory's name; one with a
// slash matches its path relative to the argument it was found under, where
// "**" stands for any number of directories. Files named as arguments are read
// whatever the patterns say.
type Selection struct {
	Include, Exclude []string
	// Follow follows symlinks that lead out of the directory walked; without it
	// they are left unread, and said (an archive holding tmp -> /tmp does not
	// walk /tmp).
	Follow bool
}

// Check reports a pattern that is not a valid glob.
func (s Selection) Check() error {
	for _, list := range [][]string{s.Include, s.Exclude} {
		for _, p := range list {
			for _, seg := range strings.Split(p, "/") {
				if _, err := path.Match(seg, ""); err != nil {
					return fmt.Errorf("mcpsleuth: %q is not a valid pattern: %v", p, err)
				}
			}
		}
	}
	return nil
}

// included reports whether a walked file is read, and why not when it is not.
func (s Selection) included(rel string) (bool, string) {
	if p, ok := matchAny(s.Exclude, rel); ok {
		return false, fmt.Sprintf("excluded by %q", p)
	}
	if IsCaptureName(rel) {
		return true, ""
	}
	if _, ok := matchAny(s.Include, rel); ok {
		return true, ""
	}
	return false, "not a capture name (" + captureNames() + ")"
}

// excludedDir reports whether a directory met in a walk is left unread, and by
// which pattern.
func (s Selection) excludedDir(rel string) (string, bool) {
	return matchAny(s.Exclude, rel)
}

// captureNames lists the endings a walk reads.
func captureNames() string {
	return strings.Join(CaptureExtensions, ", ") + ", each also with .gz or .zst"
}

func matchAny(patterns []string, rel string) (string, bool) {
	for _, p := range patterns {
		if MatchGlob(p, rel) {
			return p, true
		}
	}
	return "", false
}

// MatchGlob matches a slash-separated path as Selection's patterns do: a
// pattern without a slash against its last element, else element by element,
// "**" matching any number of elements (the configuration's suppressions match
// inputs' paths with it too).
func MatchGlob(pattern, rel string) bool {
	if !strings.Contains(pattern, "/") {
		ok, _ := path.Match(pattern, path.Base(rel))
		return ok
	}
	return matchSegments(strings.Split(pattern, "/"), strings.Split(rel, "/"))
}

func matchSegments(pattern, name []string) bool {
	for len(pattern) > 0 {
		if pattern[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchSegments(pattern[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pattern[0], name[0]); !ok {
			return false
		}
		pattern, name = pattern[1:], name[1:]
	}
	return len(name) == 0
}
