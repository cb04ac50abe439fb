package runapi

import (
	"encoding/json"
	"fmt"
)

// UnmarshalJSON reads a RunRequest leniently, as a run record holds it
// (Run.Request): the union as DecodeRunRequest takes it, or a record
// written before the union, whose command fields stood at the top level
// beside optional task, generate and build members and whose task run
// kept its policy at the top level: such a request reads as its one
// member, so that `runs show` and a daemon recovering the runs an
// earlier one left see their kind. The API's requests are read by
// DecodeRunRequest, which takes the union only and strictly.
func (r *RunRequest) UnmarshalJSON(data []byte) error {
	type plain RunRequest
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*r = RunRequest(p)
	if r.Exec != nil || (r.Task != nil && r.Task.Policy != nil) {
		return nil
	}
	var flat struct {
		Command []string        `json:"command"`
		Policy  json.RawMessage `json:"policy"`
	}
	if err := json.Unmarshal(data, &flat); err != nil {
		return fmt.Errorf("run request of an earlier record: %w", err)
	}
	switch {
	case r.Task != nil:
		if !isJSONNull(flat.Policy) {
			r.Task.Policy = flat.Policy
		}
	case r.Generate == nil && r.Build == nil && flat.Command != nil:
		var ex ExecRequest
		if err := json.Unmarshal(data, &ex); err != nil {
			return fmt.Errorf("command request of an earlier record: %w", err)
		}
		r.Exec = &ex
	}
	return nil
}
