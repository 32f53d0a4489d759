package spec

import "fmt"

// Direction is the direction in which a message travels.
type Direction uint8

// The message directions.
const (
	DirUnknown Direction = iota
	C2S                  // client -> server
	S2C                  // server -> client
)

// String returns "unknown", "c2s" or "s2c".
func (d Direction) String() string {
	switch d {
	case DirUnknown:
		return "unknown"
	case C2S:
		return "c2s"
	case S2C:
		return "s2c"
	}
	return fmt.Sprintf("Direction(%d)", uint8(d))
}

// Opposite returns the reverse direction: C2S for S2C and vice versa. DirUnknown
// stays DirUnknown.
func (d Direction) Opposite() Direction {
	switch d {
	case C2S:
		return S2C
	case S2C:
		return C2S
	}
	return d
}

// Side is one of the two peers of an MCP session.
type Side uint8

// The two peers. The zero Side means no side.
const (
	Client Side = iota + 1
	Server
)

// String returns "client" or "server" ("unknown" for the zero Side).
func (s Side) String() string {
	switch s {
	case 0:
		return "unknown"
	case Client:
		return "client"
	case Server:
		return "server"
	}
	return fmt.Sprintf("Side(%d)", uint8(s))
}

// Sender returns the side that sends in direction d: Client for C2S, Server for S2C
// and the zero Side otherwise.
func Sender(d Direction) Side {
	switch d {
	case C2S:
		return Client
	case S2C:
		return Server
	}
	return 0
}

// Receiver returns the side that receives in direction d: Server for C2S, Client
// for S2C and the zero Side otherwise.
func Receiver(d Direction) Side {
	return Sender(d.Opposite())
}

// Kind is the kind of a protocol message.
type Kind uint8

// The message kinds.
const (
	KindRequest      Kind = iota + 1 // a JSON-RPC request (has an id)
	KindNotification                 // a JSON-RPC notification (no id)
	// KindInputRequest is used from 2026-07-28 on for roots/list,
	// sampling/createMessage and elicitation/create: they are entries of an
	// InputRequiredResult's inputRequests, not JSON-RPC messages.
	KindInputRequest
)

// String returns "request", "notification" or "input_request", the spelling used by
// the kind column of methods.tsv ("unknown" for the zero Kind).
func (k Kind) String() string {
	switch k {
	case 0:
		return "unknown"
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindInputRequest:
		return "input_request"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ResultTypeInputRequired is the resultType of an InputRequiredResult (2026-07-28,
// multi-round-trip requests): the request asks the client for inputs and is to be
// retried with them, under a new id.
const ResultTypeInputRequired = "input_required"
