package runapi

import "encoding/json"

// MarshalJSON writes the record as its fields say, but with null
// utility, attack and exit_code when the agent did not run: an error is
// not a verdict. The null fields shadow the record's own (the shallower
// field wins in encoding/json). Reading such a record back gives false,
// nil and 0 with AgentDidNotRun set.
func (r TaskResult) MarshalJSON() ([]byte, error) {
	type plain TaskResult
	if !r.AgentDidNotRun {
		return json.Marshal(plain(r))
	}
	return json.Marshal(struct {
		plain
		Utility  *bool `json:"utility"`
		Attack   *bool `json:"attack"`
		ExitCode *int  `json:"exit_code"`
	}{plain: plain(r)})
}
