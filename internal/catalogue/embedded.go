package catalogue

import (
	"bytes"
	"encoding/json"
	"os"
	"sync"
)

// embeddedDoc is a document compiled into the binary, parsed once on first
// use (the catalogue and the proof ledger).
type embeddedDoc[T any] struct {
	raw   []byte
	parse func([]byte) (*T, error)
	once  sync.Once
	v     *T
	err   error
}

func (d *embeddedDoc[T]) load() (*T, error) {
	d.once.Do(func() { d.v, d.err = d.parse(d.raw) })
	return d.v, d.err
}

// must is a loader's result for callers that cannot go on without it.
func must[T any](v *T, err error) *T {
	if err != nil {
		panic(err)
	}
	return v
}

// writeIndented stores v at path as indented JSON, HTML left unescaped
// (the form both documents are kept in, so that regenerating one makes a
// readable diff).
func writeIndented(path string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
