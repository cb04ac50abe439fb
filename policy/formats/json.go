package formats

import "encoding/json"

// mustJSON encodes a value that always encodes.
func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}
