//go:build !unix

package main

import "errors"

// mkfifo: named pipes are a unix input; elsewhere the walk's inputs are written
// without one.
func mkfifo(string) error { return errors.ErrUnsupported }
