package record

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestValidatorAgreesWithValid: the validator, fed in parts of any size, says
// what json.Valid says of the whole.
func TestValidatorAgreesWithValid(t *testing.T) {
	for _, in := range []string{
		``, ` `, `{}`, `[]`, ` [ ] `, `{"a":1}`, `{"a":1,}`, `[1,]`, `[,1]`, `{"a"}`, `{"a":}`, `{,}`, `{"a":1 "b":2}`,
		`"s"`, `"\u00e9\n\"x"`, `"\u00g0"`, `"a` + "\x01" + `"`, "\"\xff\xfe\"", `tru`, `true`, `truex`, `null`, `nul`, `false `,
		`0`, `01`, `-`, `-0`, `-01`, `1.`, `1.5`, `1e`, `1e+`, `1e+5`, `1E-07`, `.5`, `+1`, `1 2`, `[1 2]`, `{"a":[{"b":[null,true,false,-1.5e3]}]}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r", `{}` + "\f", "\u00a0{}", `[[[]]]`, `[[[]]`, `]`, `}`, `{"a":1}}`,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		`{"a":{}}`, `{"a":[]}`, `[{}]`, `[{},[]]`, `{"":""}`, `{"a":"b",}`,
	} {
		for _, size := range []int{1, 2, 3, 7, 1 << 20} {
			var v validator
			for i := 0; i < len(in); i += size {
				v.write([]byte(in[i:min(i+size, len(in))]))
			}
			if got, want := v.valid(), json.Valid([]byte(in)); got != want {
				t.Errorf("%.60q in parts of %d: valid %v, json.Valid %v", in, size, got, want)
			}
		}
	}
}

// FuzzValidator: on any bytes, in any parts, the validator agrees with json.Valid.
func FuzzValidator(f *testing.F) {
	f.Add([]byte(`{"a":[1,2.5e-3,"x\u00e9",true,null,{}]}`), uint8(3))
	f.Add([]byte(`[1,]`), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, size uint8) {
		n := int(size)%16 + 1
		var v validator
		for i := 0; i < len(in); i += n {
			v.write(in[i:min(i+n, len(in))])
		}
		if got, want := v.valid(), json.Valid(in); got != want {
			t.Fatalf("%q in parts of %d: valid %v, json.Valid %v", in, n, got, want)
		}
	})
}
