package property

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/client"
)

// okInto decodes a 200 answer's body into v with numbers kept as written
// (json.Number: amounts and counts compared digit for digit), and tells
// whether the answer was a 200 that decoded.
func okInto(r *client.Response, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	return r.Status == http.StatusOK && dec.Decode(v) == nil
}
