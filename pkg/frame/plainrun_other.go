//go:build !amd64

package frame

// plainRun skips nothing here: the caller looks at a string's bytes eight at a
// time (see plainrun_amd64.go).
func plainRun(b []byte) (n int, escaped bool) { return 0, false }
