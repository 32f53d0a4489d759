package main

import (
	"bufio"
	"math/rand/v2"
	"time"
)

// output is the capture being written, and how many bytes of it so far.
type output struct {
	w *bufio.Writer
	n int64
}

func (o *output) write(b []byte) {
	n, _ := o.w.Write(b) // the error sticks to the writer: main reports it at Flush
	o.n += int64(n)
}

func (o *output) writeString(s string) {
	n, _ := o.w.WriteString(s)
	o.n += int64(n)
}

// dir is the direction of a message.
type dir int

const (
	c2s dir = iota
	s2c
)

// A lineFormat writes one message as the line(s) of a capture format.
type lineFormat interface {
	frame(o *output, at time.Time, d dir, msg []byte)
}

// envelope is envelope JSONL: {"ts":"<RFC3339Nano>","dir":"<spelling>","msg":<message>}.
type envelope struct {
	dirs [2]string // the spellings of c2s and s2c
	buf  []byte
}

func (e *envelope) frame(o *output, at time.Time, d dir, msg []byte) {
	b := append(e.buf[:0], `{"ts":"`...)
	b = at.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","dir":"`...)
	b = append(b, e.dirs[d]...)
	b = append(b, `","msg":`...)
	o.write(b)
	o.write(msg)
	o.writeString("}\n")
	e.buf = b
}

// newEnvelope is the envelope of the new profiles (mcpsnoop's and mcp-cassette's
// spelling, c2s and s2c); healthy keeps its c->s and s->c.
func newEnvelope() *envelope { return &envelope{dirs: [2]string{"c2s", "s2c"}} }

// bareLines is one bare JSON-RPC message a line.
type bareLines struct{}

func (bareLines) frame(o *output, _ time.Time, _ dir, msg []byte) {
	o.write(msg)
	o.writeString("\n")
}

// conversation is what the sessions of the generated profiles share: the capture,
// its format, a clock, a seeded random source, and the message being built.
type conversation struct {
	o   *output
	f   lineFormat
	now time.Time
	rng *rand.Rand
	msg []byte // the message being built, reused
}

func newConversation(o *output, f lineFormat, seed uint64) *conversation {
	return &conversation{
		o:   o,
		f:   f,
		now: time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC),
		rng: rand.New(rand.NewPCG(seed, 0x6d63_7073_6c65_7574)),
	}
}

// send writes the message built in c.msg, after a pause of min to max milliseconds.
func (c *conversation) send(d dir, minMS, maxMS int) {
	c.wait(minMS, maxMS)
	c.f.frame(c.o, c.now, d, c.msg)
}

// wait moves the clock on by min to max milliseconds (microsecond resolution).
func (c *conversation) wait(minMS, maxMS int) {
	us := minMS * 1000
	if maxMS > minMS {
		us += c.rng.IntN((maxMS - minMS) * 1000)
	}
	c.now = c.now.Add(time.Duration(us) * time.Microsecond)
}

// pick returns one of the strings.
func (c *conversation) pick(s ...string) string { return s[c.rng.IntN(len(s))] }

// between returns an int in [lo, hi].
func (c *conversation) between(lo, hi int) int { return lo + c.rng.IntN(hi-lo+1) }
