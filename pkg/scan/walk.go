// Package scan turns the arguments of check and scan into the files to read
// (directories walked, globs expanded, only regular files opened), spreads the
// analysis of many files over a bounded number of jobs with results handed back in
// input order, and takes a deterministic share of the files for one machine of many
// (shards). It decides nothing about the protocol: the analysis of each file is
// rule.Run's, as in check.
package scan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// Input is one file to read.
type Input struct {
	// Path is the name the file is opened by and reported under ("-" is stdin).
	Path string
	// Rel is the path relative to the argument it was found under (slash-separated):
	// what the shards hash, so that every machine of a spread scan, whatever the
	// archive's mount point, takes the same share. A file given by name (or matched
	// by a glob) is its own root: Rel is its cleaned path.
	Rel string
	// Size is the size on disk (0 when unknown: stdin, a file given by name that
	// could not be stat'ed).
	Size int64
	// Walked is set for a file found by walking a directory or matching a glob;
	// a file named explicitly is read whatever it is (a pipe from <(...) included).
	Walked bool
}

// Skipped is something a walk met and did not read, with why: a named pipe, a
// device, a socket, a symlink to one of those or to nothing, a symlink loop, a
// directory that cannot be listed.
type Skipped struct {
	Path string
	Rel  string
	Why  string
	// Failed marks what could not be read (a directory that cannot be listed, a
	// path that cannot be resolved), as against what is not read on purpose.
	Failed bool
}

// Walk is what the arguments expand to, in the sorted input order: the arguments
// in the order given, the files of each directory sorted by path.
type Walk struct {
	Inputs  []Input
	Skipped []Skipped
	// Unread are the regular files a walk left on purpose: their name is not a
	// capture's (CaptureExtensions, Selection.Include), or a Selection.Exclude
	// pattern matches them or their directory. Nothing here is an error; a
	// report says how many, and --verbose lists them.
	Unread []Skipped
	// Empty are the directories given (or matched by a pattern) in which the walk
	// found no capture file to read, nor anything it could not list: a scan of
	// them reads nothing, which is an error of its own ("no captures found").
	Empty []string
	sel   Selection
}

// CaptureExtensions are the names a directory walk picks up (before a .gz or .zst).
var CaptureExtensions = []string{".jsonl", ".ndjson", ".log", ".txt", ".json", ".har"}

// IsCaptureName reports whether a walked file's name says it may be a capture.
func IsCaptureName(path string) bool {
	name := strings.TrimSuffix(strings.TrimSuffix(path, ".gz"), ".zst")
	for _, ext := range CaptureExtensions {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// Expand turns arguments into inputs. "-" is stdin. A directory is walked for
// capture files (IsCaptureName), following symlinks to directories once each (a
// loop is skipped and named); only regular files are taken from a walk. An
// argument that does not exist but holds glob characters is expanded as a glob
// (the matches are treated as walked: directories walked, only regular files
// taken; no match leaves the argument as it is). Any other argument is an input as given: a missing file is reported when
// it is opened. Expand never fails: what cannot be walked is in Skipped.
func Expand(args []string) Walk { return ExpandWith(args, Selection{}) }

// ExpandWith is Expand with a selection of the walked files (its patterns are
// checked by Selection.Check).
func ExpandWith(args []string, sel Selection) Walk {
	w := Walk{sel: sel}
	for _, a := range args {
		if a == "-" {
			w.Inputs = append(w.Inputs, Input{Path: a, Rel: a})
			continue
		}
		st, err := os.Stat(a)
		switch {
		case err == nil && st.IsDir():
			w.walkRoot(a)
		case err != nil && errors.Is(err, fs.ErrNotExist) && hasGlobMeta(a):
			w.glob(a)
		default:
			in := Input{Path: a, Rel: filepath.ToSlash(filepath.Clean(a))}
			if err == nil && st.Mode().IsRegular() {
				in.Size = st.Size()
			}
			w.Inputs = append(w.Inputs, in)
		}
	}
	return w
}

func hasGlobMeta(s string) bool { return strings.ContainsAny(s, "*?[") }

// glob expands a pattern; matches are sorted (filepath.Glob sorts each level). A
// pattern that matches nothing (or is not one) is an input as given, as a shell
// passes it on: opening it says that no such file exists.
func (w *Walk) glob(pattern string) {
	matches, err := filepath.Glob(pattern)
	if err != nil || len(matches) == 0 {
		w.Inputs = append(w.Inputs, Input{Path: pattern, Rel: filepath.ToSlash(filepath.Clean(pattern))})
		return
	}
	for _, m := range matches {
		st, err := os.Stat(m)
		if err == nil && st.IsDir() {
			w.walkRoot(m)
			continue
		}
		rel := filepath.ToSlash(filepath.Clean(m))
		w.entry(m, rel)
	}
}

// walker walks one root: the real paths of the directories walked so far (each
// is walked once, however many symlinks lead to it).
type walker struct {
	root string
	sel  Selection
	// rootReal is the root's real path: a symlink is followed only to a place
	// under it, unless the selection follows every symlink.
	rootReal string
	visited  map[string]bool
	found    []Input
	skipped  []Skipped
	unread   []Skipped
	// links are the symlinks to directories met so far, walked once the real
	// directories have been (so that a directory is listed under its own path when
	// a symlink to it comes first).
	links []link
}

type link struct{ path, parentReal string }

func (w *Walk) walkRoot(root string) {
	wk := &walker{root: root, sel: w.sel, visited: map[string]bool{}}
	if real, err := realPath(root); err == nil {
		wk.rootReal = real
		wk.dir(root, real)
		for len(wk.links) > 0 {
			l := wk.links[0]
			wk.links = wk.links[1:]
			wk.dirLink(l)
		}
	} else {
		wk.fail(root, "cannot resolve the directory: "+describe(err))
	}
	// The sorted order of check: by path, whatever the nesting.
	sort.Slice(wk.found, func(i, j int) bool { return wk.found[i].Path < wk.found[j].Path })
	sort.Slice(wk.skipped, func(i, j int) bool { return wk.skipped[i].Path < wk.skipped[j].Path })
	w.Inputs = append(w.Inputs, wk.found...)
	w.Skipped = append(w.Skipped, wk.skipped...)
	sort.Slice(wk.unread, func(i, j int) bool { return wk.unread[i].Path < wk.unread[j].Path })
	w.Unread = append(w.Unread, wk.unread...)
	if len(wk.found) == 0 && !wk.failed() {
		w.Empty = append(w.Empty, root)
	}
}

// failed reports whether something under the root could not be listed or resolved.
func (wk *walker) failed() bool {
	for _, sk := range wk.skipped {
		if sk.Failed {
			return true
		}
	}
	return false
}

func (wk *walker) rel(path string) string {
	r, err := filepath.Rel(wk.root, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(r)
}

func (wk *walker) skip(path, why string) {
	wk.skipped = append(wk.skipped, Skipped{Path: path, Rel: wk.rel(path), Why: why})
}

// fail names what could not be read.
func (wk *walker) fail(path, why string) {
	wk.skipped = append(wk.skipped, Skipped{Path: path, Rel: wk.rel(path), Why: why, Failed: true})
}

// dir walks the directory at path, whose real (symlink-free) path is real.
func (wk *walker) dir(path, real string) {
	if wk.visited[real] {
		return
	}
	wk.visited[real] = true
	entries, err := os.ReadDir(path)
	if err != nil && len(entries) == 0 {
		wk.fail(path, "cannot list the directory: "+describe(err))
		return
	}
	if err != nil {
		wk.fail(path, "the directory could be listed only in part: "+describe(err))
	}
	for _, e := range entries {
		p := filepath.Join(path, e.Name())
		switch t := e.Type(); {
		case t.IsDir():
			if pattern, excluded := wk.sel.excludedDir(wk.rel(p)); excluded {
				wk.unread = append(wk.unread, Skipped{Path: p, Rel: wk.rel(p), Why: fmt.Sprintf("a directory excluded by %q", pattern)})
				continue
			}
			wk.dir(p, filepath.Join(real, e.Name()))
		case t&fs.ModeSymlink != 0:
			wk.symlink(p, real)
		case t.IsRegular():
			wk.regular(p, e)
		default:
			if IsCaptureName(p) {
				wk.skip(p, notRegular(t)+": only regular files are read from a directory")
			}
		}
	}
}

// regular takes a regular file met in a walk when the selection reads it, and
// says why not otherwise.
func (wk *walker) regular(p string, e fs.DirEntry) {
	rel := wk.rel(p)
	if ok, why := wk.sel.included(rel); !ok {
		wk.unread = append(wk.unread, Skipped{Path: p, Rel: rel, Why: why})
		return
	}
	in := Input{Path: p, Rel: rel, Walked: true}
	if info, err := e.Info(); err == nil {
		in.Size = info.Size()
	}
	wk.found = append(wk.found, in)
}

// symlink follows a symlink met in a walk: a directory is walked unless it was
// already (a loop, or a second way to the same place), a regular file is taken, and
// anything else is skipped and named.
func (wk *walker) symlink(path, parentReal string) {
	st, err := os.Stat(path)
	if err != nil {
		if IsCaptureName(path) || errors.Is(err, syscall.ELOOP) {
			why := "a symlink to nothing: " + describe(err)
			if errors.Is(err, syscall.ELOOP) {
				why = "a symlink loop: too many levels of symbolic links"
			}
			wk.skip(path, why)
		}
		return
	}
	if !wk.sel.Follow && (st.IsDir() || st.Mode().IsRegular()) {
		if target, err := realPath(path); err == nil && !within(wk.rootReal, target) {
			wk.unread = append(wk.unread, Skipped{Path: path, Rel: wk.rel(path), Why: "a symlink out of the directory walked, to " + target + " (--follow follows it)"})
			return
		}
	}
	switch {
	case st.IsDir():
		if pattern, excluded := wk.sel.excludedDir(wk.rel(path)); excluded {
			wk.unread = append(wk.unread, Skipped{Path: path, Rel: wk.rel(path), Why: fmt.Sprintf("a directory excluded by %q", pattern)})
			return
		}
		wk.links = append(wk.links, link{path: path, parentReal: parentReal})
	case st.Mode().IsRegular():
		rel := wk.rel(path)
		if ok, why := wk.sel.included(rel); !ok {
			wk.unread = append(wk.unread, Skipped{Path: path, Rel: rel, Why: why})
			return
		}
		wk.found = append(wk.found, Input{Path: path, Rel: rel, Size: st.Size(), Walked: true})
	default:
		if IsCaptureName(path) {
			wk.skip(path, "a symlink to "+notRegular(st.Mode().Type())+": only regular files are read from a directory")
		}
	}
}

// dirLink walks the directory a symlink leads to, unless it was walked already.
func (wk *walker) dirLink(l link) {
	real, err := realPath(l.path)
	if err != nil {
		wk.fail(l.path, "cannot resolve the symlink: "+describe(err))
		return
	}
	if wk.visited[real] {
		if real == l.parentReal || strings.HasPrefix(l.parentReal, real+string(filepath.Separator)) {
			wk.skip(l.path, "a symlink loop: it leads back to "+real+", a directory it is inside")
		} else {
			wk.skip(l.path, "a symlink to "+real+", walked already")
		}
		return
	}
	wk.dir(l.path, real)
}

// entry takes one glob match that is not a directory.
func (w *Walk) entry(path, rel string) {
	st, err := os.Stat(path)
	switch {
	case err != nil && errors.Is(err, syscall.ELOOP):
		w.Skipped = append(w.Skipped, Skipped{Path: path, Rel: rel, Why: "a symlink loop: too many levels of symbolic links"})
	case err != nil:
		w.Skipped = append(w.Skipped, Skipped{Path: path, Rel: rel, Why: "a symlink to nothing: " + describe(err)})
	case !st.Mode().IsRegular():
		w.Skipped = append(w.Skipped, Skipped{Path: path, Rel: rel, Why: notRegular(st.Mode().Type()) + ": only regular files are read from a pattern"})
	default:
		w.Inputs = append(w.Inputs, Input{Path: path, Rel: rel, Size: st.Size(), Walked: true})
	}
}

// notRegular names a file type that is not read from a walk.
func notRegular(t fs.FileMode) string {
	switch {
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	case t&fs.ModeIrregular != 0:
		return "a file of an unknown type"
	}
	return fmt.Sprintf("not a regular file (%v)", t)
}

// realPath is the absolute path of a directory without symlinks.
// within reports whether the real path target is dir or under it.
func within(dir, target string) bool {
	return target == dir || strings.HasPrefix(target, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

func realPath(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	return filepath.Abs(real)
}

// describe is an error without the path it repeats (the report names the path).
func describe(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}
