package generate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// Answer sources.
const (
	FromOutputFile = "output_file"
	FromStdout     = "stdout"
	FromModel      = "model"
	FromBuiltin    = "builtin"
)

// writeRecord saves the record and the raw answer in dir.
func writeRecord(r *runapi.GenerationRecord, dir string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, runapi.FileGeneration), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write generation record: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, runapi.FileGeneratedPolicy), []byte(r.PolicyRaw), 0o644); err != nil {
		return fmt.Errorf("write generated policy: %w", err)
	}
	return nil
}

// ReadRecord reads a generation record.
func ReadRecord(data []byte) (*runapi.GenerationRecord, error) {
	var r runapi.GenerationRecord
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("generation record: %w", err)
	}
	return &r, nil
}

// setPolicy records pol as rec's parsed (normalised) policy.
func setPolicy(r *runapi.GenerationRecord, pol *policy.Policy) error {
	data, err := pol.MarshalJSON()
	if err != nil {
		return err
	}
	r.Valid, r.Policy = true, data
	return nil
}
