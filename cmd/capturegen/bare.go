package main

// writeBare writes the healthy sessions as bare JSON-RPC lines, without envelopes:
// the direction of each frame is left to the reader to infer (byte for byte what
// capturegen -bare wrote before it had profiles).
func writeBare(o *output, limit int64) {
	healthySessions(o, bareLines{}, limit)
}
