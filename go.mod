module github.com/mcpsleuth/mcpsleuth

go 1.26.8

require (
	github.com/klauspost/compress v1.20.4
	github.com/tidwall/gjson v1.20.2
)

require (
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
)
