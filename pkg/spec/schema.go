package spec

import (
	"embed"
	"fmt"
)

// schemaFiles holds the official schema.json of every revision, copied unchanged
// from the specification repository, and that repository's LICENSE: the whole
// directory, so that a new revision's schema is its file alone (TestSchema reads
// every revision's, so a missing one fails the tests).
//
//go:embed schemas
var schemaFiles embed.FS

// Schema returns the embedded official schema.json of revision r, or nil if r is
// unknown. Each call returns a fresh copy.
func Schema(r Revision) []byte {
	if !r.Known() {
		return nil
	}
	return readEmbedded("schemas/" + string(r) + "/schema.json")
}

// SchemaLicense returns the licence of the embedded schemas: the LICENSE file of the
// specification repository (MIT / Apache-2.0), copied unchanged. Anything that
// redistributes the schemas, such as the mcpsleuth binary, must make it available.
func SchemaLicense() []byte {
	return readEmbedded("schemas/LICENSE")
}

// readEmbedded reads a file that the go:embed directive above guarantees to exist.
func readEmbedded(name string) []byte {
	data, err := schemaFiles.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("spec: embedded file %s: %v", name, err))
	}
	return data
}
