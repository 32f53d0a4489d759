package main

import "time"

// writeGoSDKLog writes the healthy sessions as the Go SDK's LoggingTransport logs them
// on the server's side: "read: <message>" for what the client sent, "write: <message>"
// for what the server sent, no timestamps, and "read error: EOF" when the client
// goes (a line of context). The reader infers the server's perspective from the
// first "read: " initialize.
func writeGoSDKLog(o *output, limit int64) {
	healthySessions(o, goSDKLog{}, limit)
}

// goSDKLog is the LoggingTransport's format, logged by the server.
type goSDKLog struct{}

func (goSDKLog) frame(o *output, _ time.Time, d dir, msg []byte) {
	if d == c2s {
		o.writeString("read: ")
	} else {
		o.writeString("write: ")
	}
	o.write(msg)
	o.writeString("\n")
}

func (goSDKLog) endSession(o *output) { o.writeString("read error: EOF\n") }
