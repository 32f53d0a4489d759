package trace

import "github.com/mcpsleuth/mcpsleuth/pkg/frame"

// Kind is what a summarised frame is, as views tell frames apart.
type Kind uint8

const (
	KindInvalid Kind = iota
	KindRequest
	KindNotification
	KindResult
	KindError
	KindBatch
)

func kindOf(k frame.Kind) Kind {
	switch k {
	case frame.KindRequest:
		return KindRequest
	case frame.KindNotification:
		return KindNotification
	case frame.KindResult:
		return KindResult
	case frame.KindError:
		return KindError
	case frame.KindBatch:
		return KindBatch
	}
	return KindInvalid
}
