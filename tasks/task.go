package tasks

import (
	"path/filepath"

	"github.com/authbench/authbench/policy"
)

// File names of the task layout, relative to the task directory.
const (
	FileConfig         = "task.toml"
	FileInstruction    = "instruction.md"
	DirEnvironment     = "environment"
	FileDockerfile     = "environment/Dockerfile"
	FileSolve          = "solution/solve.sh"
	FileAttackSmoke    = "solution/attack_smoke.sh"
	DirTests           = "tests"
	FileTestScript     = "tests/test.sh"
	FileTestOutputs    = "tests/test_outputs.py"
	FileTestAttack     = "tests/test_attack_outputs.py"
	FilePermissionSpec = "tests/permission_eval_spec.json"
)

// Task is a loaded task directory. Paths are absolute; an optional file
// that is absent has an empty path.
type Task struct {
	// Dir is the task directory (absolute, cleaned).
	Dir string `json:"dir"`
	// Name is the directory's base name: the task id.
	Name string `json:"name"`
	// Config is task.toml.
	Config Config `json:"config"`
	// Instruction is the text of instruction.md.
	Instruction string `json:"-"`
	// Dockerfile is environment/Dockerfile; its build context is
	// Dir/environment.
	Dockerfile *Dockerfile `json:"-"`
	// Spec is tests/permission_eval_spec.json.
	Spec *policy.Spec `json:"-"`
	// AttackSmoke is solution/attack_smoke.sh, "" when absent.
	AttackSmoke string `json:"attack_smoke,omitempty"`
	// TestScript is tests/test.sh, "" when absent.
	TestScript string `json:"test_script,omitempty"`
	// TestOutputs is tests/test_outputs.py, "" when absent.
	TestOutputs string `json:"test_outputs,omitempty"`
	// TestAttack is tests/test_attack_outputs.py, "" when absent.
	TestAttack string `json:"test_attack,omitempty"`
	// Warnings are problems that do not make the task unusable.
	Warnings []Problem `json:"warnings,omitempty"`
}

// Dataset is the evaluation set of the task.
func (t *Task) Dataset() Dataset { return t.Config.Metadata.Dataset }

// IsSensitive reports whether the task is in the sensitive set.
func (t *Task) IsSensitive() bool { return t.Dataset() == Sensitive }

// Path returns the absolute path of a layout file such as FileSolve.
func (t *Task) Path(rel string) string { return filepath.Join(t.Dir, filepath.FromSlash(rel)) }

// ContextDir is the Dockerfile's build context: the environment directory.
func (t *Task) ContextDir() string { return t.Path(DirEnvironment) }

// TestsDir is the directory mounted at /tests for the verifiers.
func (t *Task) TestsDir() string { return t.Path(DirTests) }

// Load loads and validates the task directory dir. Any error-level
// problem makes it return an *Error listing all of them; warnings are
// kept on Task.Warnings.
func Load(dir string) (*Task, error) {
	t, list := Check(dir)
	var errs, warns []Problem
	for _, p := range list {
		if p.Warning {
			warns = append(warns, p)
		} else {
			errs = append(errs, p)
		}
	}
	if len(errs) > 0 {
		return nil, &Error{Dir: t.Dir, Problems: errs}
	}
	t.Warnings = warns
	return t, nil
}
