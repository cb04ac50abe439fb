package policy

import (
	"fmt"
	"strings"
)

// Problem is one reason a policy or spec is invalid, at one field.
type Problem struct {
	// Field is the path to the offending value, e.g. "write[2]" or
	// "required_permissions.execute[0]"; "" for the document itself.
	Field string `json:"field"`
	// Msg says what is wrong.
	Msg string `json:"message"`
}

func (p Problem) String() string {
	if p.Field == "" {
		return p.Msg
	}
	return p.Field + ": " + p.Msg
}

// ValidationError lists every problem found in one document.
type ValidationError struct {
	// Source names the document, usually its file name.
	Source   string    `json:"source"`
	Problems []Problem `json:"problems"`
}

// maxProblems bounds how many problems one error collects.
const maxProblems = 20

func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = e.Source + ": " + p.String()
	}
	return strings.Join(lines, "\n")
}

// problems accumulates Problems while a document is checked.
type problems struct {
	list      []Problem
	truncated bool
}

func (ps *problems) add(field, format string, args ...any) {
	if len(ps.list) >= maxProblems {
		ps.truncated = true
		return
	}
	ps.list = append(ps.list, Problem{Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (ps *problems) err(source string) error {
	if len(ps.list) == 0 {
		return nil
	}
	list := ps.list
	if ps.truncated {
		list = append(list, Problem{Msg: fmt.Sprintf("more problems not shown (only the first %d are listed)", maxProblems)})
	}
	return &ValidationError{Source: source, Problems: list}
}

func joinField(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}
