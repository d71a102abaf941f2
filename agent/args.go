package agent

import (
	"encoding/json"

	"github.com/tidwall/gjson"
)

// firstStringArg returns the value of the first of keys (in the order
// given) that is a non-empty string among the top-level members of a
// call's arguments. It scans the JSON once without decoding it, so a
// write call's large content costs one pass and no allocation.
func firstStringArg(args json.RawMessage, keys ...string) string {
	best, found := len(keys), ""
	gjson.ParseBytes(args).ForEach(func(k, v gjson.Result) bool {
		if v.Type != gjson.String || v.Str == "" {
			return true
		}
		for i := 0; i < best; i++ {
			if k.Str == keys[i] {
				best, found = i, v.Str
				break
			}
		}
		return best > 0
	})
	return found
}
