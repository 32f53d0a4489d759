package spec

import "testing"

func TestDirection(t *testing.T) {
	tests := []struct {
		d        Direction
		str      string
		opposite Direction
		sender   Side
		receiver Side
	}{
		{DirUnknown, "unknown", DirUnknown, 0, 0},
		{C2S, "c2s", S2C, Client, Server},
		{S2C, "s2c", C2S, Server, Client},
		{Direction(9), "Direction(9)", Direction(9), 0, 0},
	}
	for _, tt := range tests {
		if got := tt.d.String(); got != tt.str {
			t.Errorf("Direction(%d).String() = %q, want %q", tt.d, got, tt.str)
		}
		if got := tt.d.Opposite(); got != tt.opposite {
			t.Errorf("%v.Opposite() = %v, want %v", tt.d, got, tt.opposite)
		}
		if got := Sender(tt.d); got != tt.sender {
			t.Errorf("Sender(%v) = %v, want %v", tt.d, got, tt.sender)
		}
		if got := Receiver(tt.d); got != tt.receiver {
			t.Errorf("Receiver(%v) = %v, want %v", tt.d, got, tt.receiver)
		}
	}
}

func TestSideString(t *testing.T) {
	tests := []struct {
		s    Side
		want string
	}{
		{0, "unknown"},
		{Client, "client"},
		{Server, "server"},
		{Side(7), "Side(7)"},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("Side(%d).String() = %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestKindString(t *testing.T) {
	tests := []struct {
		k    Kind
		want string
	}{
		{0, "unknown"},
		{KindRequest, "request"},
		{KindNotification, "notification"},
		{KindInputRequest, "input_request"},
		{Kind(8), "Kind(8)"},
	}
	for _, tt := range tests {
		if got := tt.k.String(); got != tt.want {
			t.Errorf("Kind(%d).String() = %q, want %q", tt.k, got, tt.want)
		}
	}
}
