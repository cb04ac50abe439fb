package tasks

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseDockerfile(t *testing.T) {
	src := "# syntax=docker/dockerfile:1\n" +
		"ARG BASE=python:3.11 \\\n" +
		"    OTHER\n" +
		"FROM --platform=linux/amd64 ${BASE} AS build\n" +
		"RUN echo a \\\n" +
		"  # a comment inside\n" +
		"  && echo b\n" +
		"\n" +
		"from build\n"
	df, err := ParseDockerfile("Dockerfile", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, in := range df.Instructions {
		cmds = append(cmds, in.Cmd)
	}
	if !reflect.DeepEqual(cmds, []string{"ARG", "FROM", "RUN", "FROM"}) {
		t.Fatalf("cmds = %v", cmds)
	}
	// BuildKit joins continuation lines as they are (no added blank).
	if run := df.Instructions[2]; run.Line != 5 || run.EndLine != 7 || run.Args != "echo a   && echo b" {
		t.Errorf("RUN = %+v", run)
	}
	froms, err := df.Froms()
	if err != nil {
		t.Fatal(err)
	}
	want := []From{
		{Index: 1, Line: 4, Flags: []string{"--platform=linux/amd64"}, Image: "${BASE}", Stage: "build"},
		{Index: 3, Line: 9, Image: "build"},
	}
	if !reflect.DeepEqual(froms, want) {
		t.Errorf("froms = %+v", froms)
	}
	if got := df.GlobalArgs(); !reflect.DeepEqual(got, [][2]string{{"BASE", "python:3.11"}, {"OTHER", ""}}) {
		t.Errorf("global args = %v", got)
	}
}

func TestParseDockerfileHeredocs(t *testing.T) {
	for _, tc := range []struct {
		name      string
		src       string
		cmds      []string
		heredocs  []Heredoc // of the instruction at index 1
		line, end int
	}{
		{"run unquoted", "FROM a\nRUN <<EOF\necho $HOME\nEOF\nUSER x\n",
			[]string{"FROM", "RUN", "USER"}, []Heredoc{{Name: "EOF", Expand: true, Content: "echo $HOME\n"}}, 2, 4},
		{"run quoted with program", "FROM a\nRUN bash <<'EOF'\nset -e\nauth import register\nEOF\n",
			[]string{"FROM", "RUN"}, []Heredoc{{Name: "EOF", Content: "set -e\nauth import register\n"}}, 2, 5},
		{"run chomp", "FROM a\nRUN <<-EOT\n\techo hi\n\tEOT\n",
			[]string{"FROM", "RUN"}, []Heredoc{{Name: "EOT", Expand: true, Chomp: true, Content: "\techo hi\n"}}, 2, 4},
		{"copy two heredocs", "FROM a\nCOPY <<one <<\"two\" /dst/\nA\none\nB\ntwo\nRUN true\n",
			[]string{"FROM", "COPY", "RUN"}, []Heredoc{{Name: "one", Expand: true, Content: "A\n"}, {Name: "two", Content: "B\n"}}, 2, 6},
		{"fd", "FROM a\nRUN 3<<EOF cat /dev/fd/3\nx\nEOF\n",
			[]string{"FROM", "RUN"}, []Heredoc{{Name: "EOF", FD: 3, Expand: true, Content: "x\n"}}, 2, 4},
		{"no heredoc in json", "FROM a\nRUN [\"sh\", \"-c\", \"cat <<EOF\"]\n",
			[]string{"FROM", "RUN"}, nil, 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			df, err := ParseDockerfile("Dockerfile", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			var cmds []string
			for _, in := range df.Instructions {
				cmds = append(cmds, in.Cmd)
			}
			if !reflect.DeepEqual(cmds, tc.cmds) {
				t.Fatalf("cmds = %v, want %v", cmds, tc.cmds)
			}
			in := df.Instructions[1]
			if !reflect.DeepEqual(in.Heredocs, tc.heredocs) || in.Line != tc.line || in.EndLine != tc.end {
				t.Errorf("instruction = %+v\nwant heredocs %+v lines %d-%d", in, tc.heredocs, tc.line, tc.end)
			}
		})
	}
}

func TestHeredocBody(t *testing.T) {
	h := Heredoc{Chomp: true, Content: "\t\tif x; then\n\t\t\ty\n\tfi\n"}
	if got := h.Body(); got != "if x; then\ny\nfi\n" {
		t.Errorf("chomped body = %q", got)
	}
	h.Chomp = false
	if got := h.Body(); got != h.Content {
		t.Errorf("body = %q", got)
	}
}

func TestParseDockerfileErrors(t *testing.T) {
	for name, tc := range map[string]struct{ src, want string }{
		"bad escape":          {"# escape=x\nFROM x\n", "escape"},
		"unknown instruction": {"FROM x\nRUN a\nSET -e\n", "line 3: unknown instruction \"SET\""},
		"unterminated":        {"FROM x\nRUN <<EOF\necho\n", "line 2: unterminated heredoc"},
		"empty":               {"# nothing\n", "file with no instructions"},
	} {
		_, err := ParseDockerfile("Dockerfile", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
	df, _ := ParseDockerfile("Dockerfile", []byte("FROM a b c d\n"))
	if _, err := df.Froms(); err == nil {
		t.Error("FROM with 4 words: want an error")
	}
}

func FuzzParseDockerfile(f *testing.F) {
	f.Add("FROM a\nRUN <<EOF\nx\nEOF\n")
	f.Add("ARG B=x\nFROM $B AS s\nCOPY <<-A <<B /d/\n\ta\nA\nb\nB\n")
	f.Fuzz(func(t *testing.T, src string) {
		df, err := ParseDockerfile("Dockerfile", []byte(src))
		if err != nil {
			return
		}
		for _, in := range df.Instructions {
			if in.Line < 1 || in.EndLine < in.Line {
				t.Fatalf("bad lines %+v", in)
			}
		}
		df.Froms()
		df.GlobalArgs()
		TranslateHeredocs(df, nil)
	})
}
