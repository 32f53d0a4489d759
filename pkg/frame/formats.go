package frame

import (
	"sort"
	"strings"
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
	return jsonrpcDecoder{}
}

// KnownFormat reports whether name is "auto" or a decoder name.
func KnownFormat(name string) bool {
	if name == "" || name == "auto" {
		return true
	}
	_, ok := decoderNamed(name)
	return ok
}
