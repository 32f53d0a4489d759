package trace

import "github.com/mcpsleuth/mcpsleuth/pkg/frame"

// Kind is what a summarised frame is: frame.Kind, named here so that views tell
// frames apart without reading frames themselves.
type Kind = frame.Kind

// The kinds of frame.Kind, for views.
const (
	KindInvalid      = frame.KindInvalid
	KindRequest      = frame.KindRequest
	KindNotification = frame.KindNotification
	KindResult       = frame.KindResult
	KindError        = frame.KindError
	KindBatch        = frame.KindBatch
)
