package tasks

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/command"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
)

// Dockerfile is the parsed environment/Dockerfile, as BuildKit's parser
// (the one `docker build` uses) reads it, heredocs included.
type Dockerfile struct {
	// Path is the file's absolute path.
	Path string
	// Lines is the file split into lines (without newlines).
	Lines []string
	// Instructions are the logical instructions in order.
	Instructions []Instruction
	// Escape is the escape character (`\` unless a directive says "`").
	Escape rune
}

// Instruction is one logical Dockerfile instruction, continuation lines
// joined.
type Instruction struct {
	// Line and EndLine are the 1-based first and last physical lines
	// (heredoc bodies included).
	Line, EndLine int
	// Cmd is the upper-cased keyword, e.g. "FROM".
	Cmd string
	// Args is the rest of the instruction's first logical line, flags
	// included, continuations joined.
	Args string
	// Flags are the builder flags, e.g. "--platform=linux/amd64", verbatim.
	Flags []string
	// Words are the arguments as the parser split them (one element, the
	// command line, for a shell-form RUN/CMD/ENTRYPOINT/SHELL).
	Words []string
	// JSON says the arguments were written in exec (JSON array) form.
	JSON bool
	// Heredocs are the here-documents of a RUN, COPY or ADD, in order.
	Heredocs []Heredoc
}

// Heredoc is one here-document of an instruction.
type Heredoc struct {
	// Name is the delimiter word, quotes removed.
	Name string
	// FD is the file descriptor written before "<<" (0 when none).
	FD uint
	// Expand is false when the delimiter was quoted: no variable
	// expansion of the body.
	Expand bool
	// Chomp is true for "<<-": leading tabs are stripped from the body.
	Chomp bool
	// Content is the body, every line with its newline, the delimiter
	// line excluded.
	Content string
}

// Body returns the content with leading tabs stripped when Chomp is set.
func (h Heredoc) Body() string {
	if h.Chomp {
		return parser.ChompHeredocContent(h.Content)
	}
	return h.Content
}

// ParseDockerfile parses a Dockerfile with BuildKit's parser. An
// instruction the Dockerfile reference does not know is an error with its
// line (BuildKit ignores them; builders refuse them).
func ParseDockerfile(path string, data []byte) (*Dockerfile, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	df := &Dockerfile{Path: path, Lines: strings.Split(text, "\n")}
	res, err := parser.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, errors.New(parseErrorText(err))
	}
	df.Escape = res.EscapeToken
	for _, n := range res.AST.Children {
		in, err := instructionOf(n)
		if err != nil {
			return nil, err
		}
		df.Instructions = append(df.Instructions, in)
	}
	return df, nil
}

// parseErrorText prefixes BuildKit's error with its line, when it has one.
func parseErrorText(err error) string {
	var le *parser.LocationError
	if errors.As(err, &le) && len(le.Locations) > 0 && len(le.Locations[0]) > 0 && le.Locations[0][0].Start.Line > 0 {
		return fmt.Sprintf("line %d: %v", le.Locations[0][0].Start.Line, le.Unwrap())
	}
	return err.Error()
}

func instructionOf(n *parser.Node) (Instruction, error) {
	in := Instruction{
		Line: n.StartLine, EndLine: n.EndLine,
		Cmd:   strings.ToUpper(n.Value),
		Flags: append([]string(nil), n.Flags...),
		JSON:  n.Attributes["json"],
	}
	if _, ok := command.Commands[strings.ToLower(n.Value)]; !ok {
		return in, fmt.Errorf("line %d: unknown instruction %q", n.StartLine, n.Value)
	}
	if _, rest, ok := cutSpace(strings.TrimSpace(n.Original)); ok {
		in.Args = strings.TrimSpace(rest)
	}
	for w := n.Next; w != nil; w = w.Next {
		in.Words = append(in.Words, w.Value)
	}
	for _, h := range n.Heredocs {
		in.Heredocs = append(in.Heredocs, Heredoc{Name: h.Name, FD: h.FileDescriptor, Expand: h.Expand, Chomp: h.Chomp, Content: h.Content})
	}
	return in, nil
}

// cutSpace splits s at its first run of blanks.
func cutSpace(s string) (string, string, bool) {
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
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
		f := From{Index: i, Line: in.Line, Flags: in.Flags}
		switch w := in.Words; {
		case len(w) == 1:
			f.Image = w[0]
		case len(w) == 3 && strings.EqualFold(w[1], "AS"):
			f.Image, f.Stage = w[0], w[2]
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
		if in.Cmd == "ARG" {
			out = append(out, argPairs(in)...)
		}
	}
	return out
}

// argPairs returns the NAME/default pairs of one ARG instruction.
func argPairs(in Instruction) [][2]string {
	var out [][2]string
	for _, w := range in.Words {
		k, v, _ := strings.Cut(w, "=")
		out = append(out, [2]string{k, unquote(v)})
	}
	return out
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}
