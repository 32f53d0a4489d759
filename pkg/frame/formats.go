package frame

import (
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// decoders lists every line format in detection order.
var decoderNames = []string{envelopeName, jsonrpcName, gosdkName}

func decoderNamed(name string) (lineDecoder, bool) {
	switch name {
	case envelopeName:
		return envelopeDecoder{}, true
	case jsonrpcName:
		return jsonrpcDecoder{}, true
	case gosdkName:
		return gosdkDecoder{}, true
	}
	return nil, false
}

// Formats returns the names accepted by Options.Format, sorted.
func Formats() []string {
	names := append([]string(nil), decoderNames...)
	sort.Strings(names)
	return names
}

func formatList() string { return strings.Join(Formats(), ", ") }

// detect picks the decoder for a line, or nil when the line does not tell.
func detect(line []byte) lineDecoder {
	if _, _, ok := splitGoSDK(line); ok {
		return gosdkDecoder{}
	}
	if !looksLikeJSON(line) || !validJSON(line) {
		return nil
	}
	if isEnvelope(line) {
		return envelopeDecoder{}
	}
	if !hasJSONRPCMember(line) {
		return nil // a header, stderr or log record: not a frame, so it does not tell
	}
	return jsonrpcDecoder{}
}

// hasJSONRPCMember reports whether a valid JSON line is an array or an object with at
// least one member of a JSON-RPC message.
func hasJSONRPCMember(line []byte) bool {
	v := gjson.Parse(view(line))
	if !v.IsObject() {
		return true
	}
	found := false
	v.ForEach(func(k, _ gjson.Result) bool {
		switch k.Str {
		case "jsonrpc", "method", "id", "result", "error":
			found = true
			return false
		}
		return true
	})
	return found
}

// KnownFormat reports whether name is "auto" or a decoder name.
func KnownFormat(name string) bool {
	if name == "" || name == "auto" {
		return true
	}
	_, ok := decoderNamed(name)
	return ok
}
