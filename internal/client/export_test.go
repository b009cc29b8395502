package client

import "encoding/json"

func (e *Exchange) MarshalJSONForTest() (string, error) {
	b, err := json.Marshal(e)
	return string(b), err
}
