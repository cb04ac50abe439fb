package toolbox

import "github.com/authbench/authbench/policy"

// Operations of a Request.
const (
	OpListDir   = "list_dir"
	OpReadFile  = "read_file"
	OpWriteFile = "write_file"
	OpGrep      = "grep"
	OpStat      = "stat"
	OpWhich     = "which"
	OpShell     = "shell"
	// OpPing answers at once and touches nothing: the toolbox is up.
	OpPing = "ping"
)

// Request is one operation for the toolbox.
type Request struct {
	ID uint64 `json:"id"`
	// Op is one of the Op* constants.
	Op string `json:"op"`
	// Path is the file or directory of list_dir, read_file, write_file,
	// grep and stat, and the program name of which; relative paths are
	// taken from the shell's current directory.
	Path string `json:"path,omitempty"`
	// Offset and Limit select the bytes read_file returns (Limit 0: the
	// default, Options.MaxOutput); Limit also bounds grep's matches.
	Offset int64 `json:"offset,omitempty"`
	Limit  int64 `json:"limit,omitempty"`
	// Content is what write_file writes.
	Content string `json:"content,omitempty"`
	// Pattern is grep's regular expression (Go syntax).
	Pattern string `json:"pattern,omitempty"`
	// Command is shell's command line; TimeoutS its time (0: the
	// default, bounded by Options.MaxTimeout).
	Command  string  `json:"command,omitempty"`
	TimeoutS float64 `json:"timeout_s,omitempty"`
	// Plan is confine's plan (π's, compiled by the host); Rules are the
	// granted rules of confine and grant.
	Plan  *policy.Plan  `json:"plan,omitempty"`
	Rules []policy.Rule `json:"rules,omitempty"`
}

// Result is the answer to one Request.
type Result struct {
	ID uint64 `json:"id"`
	// Output is what the model reads; bounded, with a note saying what
	// was dropped.
	Output string `json:"output"`
	// ExitCode is shell's exit status (128+N when killed by signal N).
	ExitCode *int `json:"exit_code,omitempty"`
	// TimedOut: shell's command ran out of time; its process group was
	// killed.
	TimedOut bool `json:"timed_out,omitempty"`
	// Errno is the errno name ("EACCES") when the operation failed in the
	// kernel; Error is the real error text.
	Errno string `json:"errno,omitempty"`
	Error string `json:"error,omitempty"`
	// Truncated: Output is not all there was.
	Truncated bool `json:"truncated,omitempty"`
	// StartNS and EndNS (unix nanoseconds, CLOCK_REALTIME, the same inside
	// and outside the container) bound the call: its trace window.
	StartNS int64 `json:"start_ns"`
	EndNS   int64 `json:"end_ns"`
}
