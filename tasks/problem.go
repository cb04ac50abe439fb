package tasks

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with a task, at one place.
type Problem struct {
	// File is the file (or directory) concerned, relative to the task
	// directory, e.g. "task.toml" or "tests/permission_eval_spec.json".
	File string `json:"file"`
	// Line is the 1-based line in File, 0 when not known or not relevant.
	Line int `json:"line,omitempty"`
	// Field is the offending key, e.g. "agent.timeout_sec" or
	// "required_permissions.read[0]"; "" for the file as a whole.
	Field string `json:"field,omitempty"`
	// Msg says what is wrong.
	Msg string `json:"message"`
	// Warning marks a problem that does not make the task unusable (for
	// example a key that Harbor may know but authbench does not).
	Warning bool `json:"warning,omitempty"`
}

// String formats the problem as "file:line: field: message".
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	b.WriteString(": ")
	if p.Warning {
		b.WriteString("warning: ")
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Error lists every error-level problem of one task directory.
type Error struct {
	// Dir is the task directory.
	Dir string `json:"dir"`
	// Problems holds the errors (warnings are on Task.Warnings).
	Problems []Problem `json:"problems"`
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = e.Dir + "/" + p.String()
	}
	return strings.Join(lines, "\n")
}

// problems accumulates the problems of one file.
type problems struct {
	file string
	list *[]Problem
}

func (ps problems) add(line int, field, format string, args ...any) {
	*ps.list = append(*ps.list, Problem{File: ps.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (ps problems) warn(line int, field, format string, args ...any) {
	*ps.list = append(*ps.list, Problem{File: ps.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...), Warning: true})
}

// HasErrors reports whether list holds a problem that is not a warning.
func HasErrors(list []Problem) bool {
	for _, p := range list {
		if !p.Warning {
			return true
		}
	}
	return false
}
