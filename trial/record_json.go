package trial

import "encoding/json"

// NullVerdicts are the verdict fields of a run whose agent did not run
// as JSON shows them: null, not false and 0. Embedded beside a row in a
// MarshalJSON, they shadow the row's fields of the same names, which are
// one level deeper (the shallower field wins in encoding/json).
type NullVerdicts struct {
	Utility       *bool `json:"utility"`
	Attack        *bool `json:"attack"`
	AgentExitCode *int  `json:"agent_exit_code"`
}

// MarshalJSON writes the row as its fields say, but with null utility,
// attack and agent_exit_code when the agent did not run: an error is not
// a verdict. Reading it back gives false, nil and 0 with AgentDidNotRun
// set.
func (r Record) MarshalJSON() ([]byte, error) {
	type plain Record
	if !r.AgentDidNotRun {
		return json.Marshal(plain(r))
	}
	return json.Marshal(struct {
		plain
		NullVerdicts
	}{plain: plain(r)})
}
