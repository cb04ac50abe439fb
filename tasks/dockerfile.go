package tasks

import (
	"fmt"
	"strings"
)

// Dockerfile is the parsed environment/Dockerfile: just enough structure
// to find, check and rewrite its FROM lines (the builder parses the rest).
type Dockerfile struct {
	// Path is the file's absolute path.
	Path string
	// Lines is the file split into lines (without newlines).
	Lines []string
	// Instructions are the logical instructions in order.
	Instructions []Instruction
}

// Instruction is one logical Dockerfile instruction, continuation lines
// joined.
type Instruction struct {
	// Line and EndLine are the 1-based first and last physical lines.
	Line, EndLine int
	// Cmd is the upper-cased keyword, e.g. "FROM".
	Cmd string
	// Args is the rest of the instruction, continuations joined by a space.
	Args string
}

// ParseDockerfile splits a Dockerfile into instructions. It handles
// comments, blank lines, backslash continuations and a leading
// "# escape=`" directive; heredocs are left to the builder.
func ParseDockerfile(path string, data []byte) (*Dockerfile, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	df := &Dockerfile{Path: path, Lines: strings.Split(text, "\n")}
	escape := byte('\\')
	var cur *Instruction
	var buf []string
	inDirectives := true
	for i, raw := range df.Lines {
		line := strings.TrimSpace(raw)
		if cur == nil {
			if strings.HasPrefix(line, "#") {
				if inDirectives {
					if v, ok := directive(line, "escape"); ok {
						if len(v) != 1 || (v != "\\" && v != "`") {
							return nil, fmt.Errorf("line %d: escape directive must be \\ or `", i+1)
						}
						escape = v[0]
					}
				}
				continue
			}
			if line == "" {
				continue
			}
			inDirectives = false
			cur = &Instruction{Line: i + 1}
			buf = nil
		} else if strings.HasPrefix(line, "#") || line == "" {
			continue // comments and blank lines inside a continuation
		}
		if n := len(line); n > 0 && line[n-1] == escape {
			buf = append(buf, strings.TrimSpace(line[:n-1]))
			continue
		}
		buf = append(buf, line)
		cur.EndLine = i + 1
		joined := strings.Join(buf, " ")
		kw, rest, _ := strings.Cut(joined, " ")
		if j := strings.IndexAny(kw, "\t"); j >= 0 {
			kw, rest = kw[:j], kw[j+1:]+" "+rest
		}
		cur.Cmd = strings.ToUpper(kw)
		cur.Args = strings.TrimSpace(rest)
		df.Instructions = append(df.Instructions, *cur)
		cur = nil
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: instruction continues past the end of the file", cur.Line)
	}
	return df, nil
}

func directive(line, name string) (string, bool) {
	body := strings.TrimSpace(strings.TrimPrefix(line, "#"))
	k, v, ok := strings.Cut(body, "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(k), name) {
		return "", false
	}
	return strings.TrimSpace(v), true
}

// From is one FROM instruction, split into its parts.
type From struct {
	// Index is the instruction's index in Dockerfile.Instructions.
	Index int
	// Line is its first line.
	Line int
	// Flags are options such as "--platform=linux/amd64", kept verbatim.
	Flags []string
	// Image is the image reference as written (may contain $VARS).
	Image string
	// Stage is the "AS name", "" when absent.
	Stage string
}

// Froms returns the FROM instructions of the file, in order.
func (df *Dockerfile) Froms() ([]From, error) {
	var out []From
	for i, in := range df.Instructions {
		if in.Cmd != "FROM" {
			continue
		}
		f := From{Index: i, Line: in.Line}
		fields := strings.Fields(in.Args)
		for len(fields) > 0 && strings.HasPrefix(fields[0], "--") {
			f.Flags = append(f.Flags, fields[0])
			fields = fields[1:]
		}
		switch {
		case len(fields) == 1:
			f.Image = fields[0]
		case len(fields) == 3 && strings.EqualFold(fields[1], "AS"):
			f.Image, f.Stage = fields[0], fields[2]
		default:
			return nil, fmt.Errorf("line %d: FROM wants [--flags] IMAGE [AS NAME], got %q", in.Line, in.Args)
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no FROM instruction")
	}
	return out, nil
}

// GlobalArgs returns the ARG defaults declared before the first FROM (the
// only ARGs a FROM line can use), in order; an ARG without a default maps
// to "".
func (df *Dockerfile) GlobalArgs() [][2]string {
	var out [][2]string
	for _, in := range df.Instructions {
		if in.Cmd == "FROM" {
			break
		}
		if in.Cmd != "ARG" {
			continue
		}
		for _, f := range strings.Fields(in.Args) {
			k, v, _ := strings.Cut(f, "=")
			out = append(out, [2]string{k, unquote(v)})
		}
	}
	return out
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}
