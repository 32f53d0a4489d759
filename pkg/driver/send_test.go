package driver

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// batchOf is a batch of n frame records and one context record.
func batchOf(n int) *parsedBatch {
	b := &parsedBatch{}
	for i := range n {
		b.records = append(b.records, parsedRecord{kind: frame.RecordFrame, line: i + 1})
	}
	b.records = append(b.records, parsedRecord{kind: frame.RecordContext, line: n + 1})
	return b
}

// TestSendPreparesWhileTheReplayIsBehind: a batch the replay takes at once is
// handed over unprepared; one it is not ready for gets its frames prepared, in
// order, until the replay takes it, and not one more after (the replay owns the
// batch then); when the replay takes it only after every frame, all are.
func TestSendPreparesWhileTheReplayIsBehind(t *testing.T) {
	var calls atomic.Int64
	prepare := func(f *frame.Frame) {
		calls.Add(1)
		f.Ahead = f.Line
		time.Sleep(200 * time.Microsecond)
	}

	ready := make(chan *parsedBatch, 1)
	if behind := send(ready, batchOf(100), prepare); behind || calls.Load() != 0 {
		t.Fatalf("a replay ready for the batch: behind %v, %d frames prepared", behind, calls.Load())
	}

	busy, big := make(chan *parsedBatch), batchOf(1000)
	taken := make(chan int64)
	go func() {
		for calls.Load() < 10 {
			time.Sleep(time.Millisecond)
		}
		b := <-busy
		at := calls.Load()
		time.Sleep(5 * time.Millisecond) // prepare would go on meanwhile if send did
		if now := calls.Load(); now != at {
			t.Errorf("%d frames prepared after the replay took the batch", now-at)
		}
		prepared := 0
		for i, r := range b.records {
			switch {
			case r.kind != frame.RecordFrame:
				if r.frame.Ahead != nil {
					t.Errorf("a context record was prepared")
				}
			case r.frame.Ahead == nil:
			case i != prepared || r.frame.Ahead != r.frame.Line:
				t.Errorf("record %d prepared out of order", i)
			default:
				prepared++
			}
		}
		taken <- int64(prepared)
	}()
	if behind := send(busy, big, prepare); !behind {
		t.Errorf("a replay not ready for the batch: not behind")
	}
	if prepared := <-taken; prepared < 10 || prepared == 1000 || prepared != calls.Load() {
		t.Errorf("%d frames prepared (%d calls) of 1000 before the replay took the batch, after the tenth", prepared, calls.Load())
	}

	calls.Store(0)
	late, small := make(chan *parsedBatch), batchOf(20)
	done := make(chan struct{})
	go func() {
		for calls.Load() < 20 {
			time.Sleep(time.Millisecond)
		}
		b := <-late
		for i := range 20 {
			if b.records[i].frame.Ahead == nil {
				t.Errorf("frame %d of a batch the replay took last was not prepared", i)
			}
		}
		close(done)
	}()
	send(late, small, prepare)
	<-done
}
