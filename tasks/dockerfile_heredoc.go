package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerfile/shell"
)

// HeredocDir is the directory, inside a generated build context, that
// holds the bodies of COPY/ADD heredocs (see TranslateHeredocs).
const HeredocDir = ".authbench-heredocs"

// MaxBuilderLine is the longest line a builder without heredoc support
// reads (buildah 1.28 scans lines with a 64 KiB buffer); a translated
// RUN longer than this cannot be built.
const MaxBuilderLine = 60000

// defaultShell is the shell of a stage without SHELL.
var defaultShell = []string{"/bin/sh", "-c"}

// Translated is a Dockerfile with its heredocs rewritten for a builder
// that does not know them.
type Translated struct {
	// Dockerfile has the translated Lines (instructions keep their line
	// numbers; the lines of a heredoc body become blank).
	Dockerfile *Dockerfile
	// Files are the generated files the translated COPY/ADD read from the
	// build context: path relative to the context (under HeredocDir) →
	// content. Empty when the build can use the task's context as it is.
	Files map[string]string
}

// HeredocProblem is one heredoc the translation cannot build.
type HeredocProblem struct {
	// Line is the instruction's first line.
	Line int `json:"line"`
	// Msg says why.
	Msg string `json:"message"`
}

// HeredocError lists every heredoc the builder cannot run.
type HeredocError struct {
	Problems []HeredocProblem `json:"problems"`
}

func (e *HeredocError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s:%d: heredoc the builder cannot run: %s", FileDockerfile, p.Line, p.Msg)
	}
	return b.String()
}

// TranslateHeredocs rewrites every heredoc RUN, COPY and ADD of df into
// instructions that buildah 1.28 (whose parser predates heredocs) runs
// with the semantics the Dockerfile reference gives them:
//
//   - RUN <<EOF (the command is only the heredoc): the body (tabs stripped
//     for <<-) is run by the stage's SHELL, written as exec form
//     RUN ["/bin/sh", "-c", BODY]; a body starting with "#!" is written to
//     a temporary executable file and run directly, then removed.
//   - RUN CMD <<EOF ... (a program reading the heredoc): the command line
//     and the bodies are given, as BuildKit does, to the stage's SHELL,
//     which does the heredoc itself (quoting, <<-, file descriptors).
//   - COPY/ADD <<EOF DEST: the body (tabs stripped for <<-; variables
//     expanded unless the delimiter is quoted) becomes the generated
//     context file HeredocDir/L<line>-<n>/NAME, and the instruction
//     copies it, with its flags, to DEST like any other source.
//
// buildArgs are the --build-arg values (for expanding COPY bodies). What
// cannot be translated (a line too long for the builder, ONBUILD with a
// heredoc, a COPY body naming a variable whose value only the base image
// knows, ...) is returned as a *HeredocError naming every such line.
func TranslateHeredocs(df *Dockerfile, buildArgs map[string]string) (*Translated, error) {
	tr := &Translated{Files: map[string]string{}}
	lines := append([]string(nil), df.Lines...)
	var bad []HeredocProblem
	st := newStageTracker(df, buildArgs)
	for _, in := range df.Instructions {
		if len(in.Heredocs) > 0 {
			line, files, err := st.translate(in)
			if err != nil {
				bad = append(bad, HeredocProblem{Line: in.Line, Msg: err.Error()})
			} else {
				lines[in.Line-1] = line
				for i := in.Line; i < in.EndLine && i < len(lines); i++ {
					lines[i] = ""
				}
				for k, v := range files {
					tr.Files[k] = v
				}
			}
		}
		st.step(in)
	}
	if len(bad) > 0 {
		return nil, &HeredocError{Problems: bad}
	}
	out := *df
	out.Lines = lines
	tr.Dockerfile = &out
	return tr, nil
}

// stageTracker follows what a heredoc translation depends on: the
// stage's SHELL and the variables (ARG, ENV) known at each instruction.
type stageTracker struct {
	escape    rune
	buildArgs map[string]string
	global    map[string]string
	shells    map[string][]string // by lower-cased stage name
	envs      map[string]map[string]string
	shell     []string
	env       map[string]string // shared with envs[stage]
	stage     string
	started   bool
}

func newStageTracker(df *Dockerfile, buildArgs map[string]string) *stageTracker {
	st := &stageTracker{escape: df.Escape, buildArgs: buildArgs, global: map[string]string{},
		shells: map[string][]string{}, envs: map[string]map[string]string{}, shell: defaultShell, env: map[string]string{}}
	if st.escape == 0 {
		st.escape = '\\'
	}
	for _, kv := range df.GlobalArgs() {
		st.global[kv[0]] = kv[1]
		if v, ok := buildArgs[kv[0]]; ok {
			st.global[kv[0]] = v
		}
	}
	return st
}

// step records the effect of in on the tracked state.
func (st *stageTracker) step(in Instruction) {
	switch in.Cmd {
	case "FROM":
		st.started = true
		st.shell, st.env = defaultShell, map[string]string{}
		if len(in.Words) > 0 {
			if sh, ok := st.shells[strings.ToLower(in.Words[0])]; ok {
				st.shell, st.env = sh, copyMap(st.envs[strings.ToLower(in.Words[0])])
			}
		}
		st.stage = ""
		if len(in.Words) == 3 {
			st.stage = strings.ToLower(in.Words[2])
			st.shells[st.stage], st.envs[st.stage] = st.shell, st.env
		}
	case "SHELL":
		if in.JSON && len(in.Words) > 0 {
			st.shell = append([]string(nil), in.Words...)
			if st.stage != "" {
				st.shells[st.stage] = st.shell
			}
		}
	case "ARG":
		if !st.started {
			return
		}
		for _, kv := range argPairs(in) {
			v, ok := st.buildArgs[kv[0]]
			if !ok {
				v, ok = st.global[kv[0]]
				if kv[1] != "" || !ok {
					v = st.expand(kv[1])
				}
			}
			st.env[kv[0]] = v
		}
	case "ENV":
		for i := 0; i+1 < len(in.Words); i += 3 {
			st.env[in.Words[i]] = st.expand(in.Words[i+1])
		}
	}
}

// expand processes a word as BuildKit does for ARG and ENV values.
func (st *stageTracker) expand(word string) string {
	lex := shell.NewLex(st.escape)
	out, _, err := lex.ProcessWord(word, st.envGetter())
	if err != nil {
		return word
	}
	return out
}

func (st *stageTracker) envGetter() shell.EnvGetter {
	keys := make([]string, 0, len(st.env))
	for k := range st.env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	kv := make([]string, 0, len(keys))
	for _, k := range keys {
		kv = append(kv, k+"="+st.env[k])
	}
	return shell.EnvsFromSlice(kv)
}

// translate returns the single line that replaces in, and the context
// files it needs.
func (st *stageTracker) translate(in Instruction) (string, map[string]string, error) {
	var line string
	var files map[string]string
	var err error
	switch in.Cmd {
	case "RUN":
		line, err = st.translateRun(in)
	case "COPY", "ADD":
		line, files, err = st.translateCopy(in)
	default:
		return "", nil, fmt.Errorf("%s with a heredoc", in.Cmd)
	}
	if err != nil {
		return "", nil, err
	}
	if len(line) > MaxBuilderLine {
		return "", nil, fmt.Errorf("%s becomes a %d-byte line, longer than buildah 1.28 reads (%d)", in.Cmd, len(line), MaxBuilderLine)
	}
	return line, files, nil
}

// shebangRunner writes its first argument to an executable temporary file
// named by its second, runs it and removes it: BuildKit mounts such a body
// at /dev/pipes/NAME and executes it.
const shebangRunner = `d=$(mktemp -d) && printf '%s' "$1" > "$d/$2" && chmod 755 "$d/$2" && "$d/$2"; rc=$?; rm -rf "$d"; exit $rc`

func (st *stageTracker) translateRun(in Instruction) (string, error) {
	if in.JSON || len(in.Words) != 1 {
		return "", fmt.Errorf("RUN in exec form with a heredoc")
	}
	var args []string
	if parser.MustParseHeredoc(in.Words[0]) != nil {
		body := in.Heredocs[0].Body()
		if strings.HasPrefix(body, "#!") {
			args = []string{"/bin/sh", "-c", shebangRunner, "sh", body, in.Heredocs[0].Name}
		} else {
			args = append(append([]string(nil), st.shell...), body)
		}
	} else {
		var b strings.Builder
		b.WriteString(in.Words[0])
		for _, h := range in.Heredocs {
			b.WriteByte('\n')
			b.WriteString(h.Content)
			b.WriteString(h.Name)
		}
		args = append(append([]string(nil), st.shell...), b.String())
	}
	return joinInstruction("RUN", in.Flags, jsonArray(args)), nil
}

// plainWord matches a word that needs no quoting in a Dockerfile.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9._+@%=:,-]+$`)

func (st *stageTracker) translateCopy(in Instruction) (string, map[string]string, error) {
	for _, f := range in.Flags {
		if strings.HasPrefix(f, "--from") {
			return "", nil, fmt.Errorf("%s --from with a heredoc source", in.Cmd)
		}
	}
	if in.JSON || len(in.Words) < 2 {
		return "", nil, fmt.Errorf("%s with a heredoc needs SOURCE... DEST", in.Cmd)
	}
	docs := map[string]Heredoc{}
	for _, h := range in.Heredocs {
		docs[h.Name] = h
	}
	files := map[string]string{}
	words := make([]string, 0, len(in.Words))
	for i, w := range in.Words {
		h := parser.MustParseHeredoc(w)
		if h == nil {
			words = append(words, w)
			continue
		}
		if i == len(in.Words)-1 {
			return "", nil, fmt.Errorf("%s with a heredoc as its destination", in.Cmd)
		}
		doc := docs[h.Name]
		if !plainWord.MatchString(doc.Name) || doc.Name == "." || doc.Name == ".." {
			return "", nil, fmt.Errorf("heredoc name %q is not a plain file name", doc.Name)
		}
		body := doc.Body()
		if doc.Expand {
			var err error
			if body, err = st.expandBody(body); err != nil {
				return "", nil, err
			}
		}
		rel := path.Join(HeredocDir, fmt.Sprintf("L%d-%d", in.Line, i), doc.Name)
		files[rel] = body
		words = append(words, rel)
	}
	return joinInstruction(in.Cmd, in.Flags, strings.Join(words, " ")), files, nil
}

// expandBody expands variables in a COPY heredoc body as BuildKit does
// (quotes are kept), with the variables the Dockerfile itself defines.
func (st *stageTracker) expandBody(body string) (string, error) {
	lex := shell.NewLex(st.escape)
	lex.SkipProcessQuotes = true
	known := shell.EnvsFromSlice(nil)
	_, unmatched, err := lex.ProcessWord(body, known)
	if err != nil {
		return "", fmt.Errorf("expand heredoc body: %v", err)
	}
	var unknown []string
	for name := range unmatched {
		if _, ok := st.env[name]; !ok {
			unknown = append(unknown, "$"+name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return "", fmt.Errorf("the body expands %s, which no ARG or ENV of this Dockerfile sets (its value would come from the base image); quote the delimiter (<<'EOF') or declare it", strings.Join(unknown, ", "))
	}
	out, _, err := lex.ProcessWord(body, st.envGetter())
	if err != nil {
		return "", fmt.Errorf("expand heredoc body: %v", err)
	}
	return out, nil
}

func joinInstruction(cmd string, flags []string, rest string) string {
	parts := append(append([]string{cmd}, flags...), rest)
	return strings.Join(parts, " ")
}

// jsonArray encodes args as a Dockerfile exec-form array on one line.
func jsonArray(args []string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(args)
	return strings.TrimSpace(b.String())
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
