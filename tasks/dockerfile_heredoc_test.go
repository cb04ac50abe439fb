package tasks

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestTranslateHeredocs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		src   string
		args  map[string]string
		want  string // the translated file
		files map[string]string
	}{
		{"no heredoc: unchanged", "FROM a\nRUN echo hi \\\n  there\n", nil,
			"FROM a\nRUN echo hi \\\n  there\n", map[string]string{}},
		{"run body in the shell", "FROM a\nRUN <<EOF\necho $HOME\nEOF\nUSER x\n", nil,
			"FROM a\nRUN [\"/bin/sh\",\"-c\",\"echo $HOME\\n\"]\n\n\nUSER x\n", map[string]string{}},
		{"run chomp strips tabs", "FROM a\nRUN <<-EOF\n\techo a\n\tEOF\n", nil,
			"FROM a\nRUN [\"/bin/sh\",\"-c\",\"echo a\\n\"]\n\n\n", map[string]string{}},
		{"run with SHELL and flags", "FROM a AS s\nSHELL [\"/bin/bash\", \"-eo\", \"pipefail\", \"-c\"]\nFROM s\nRUN --network=none <<EOF\nx\nEOF\n", nil,
			"FROM a AS s\nSHELL [\"/bin/bash\", \"-eo\", \"pipefail\", \"-c\"]\nFROM s\nRUN --network=none [\"/bin/bash\",\"-eo\",\"pipefail\",\"-c\",\"x\\n\"]\n\n\n", map[string]string{}},
		{"run program reading a quoted heredoc: the shell does the heredoc", "FROM a\nRUN bash <<'EOF'\nset -e\necho \"$X\" > /o\nEOF\n", nil,
			"FROM a\nRUN [\"/bin/sh\",\"-c\",\"bash <<'EOF'\\nset -e\\necho \\\"$X\\\" > /o\\nEOF\"]\n\n\n\n", map[string]string{}},
		{"run two heredocs to files", "FROM a\nRUN cat <<A > /a && cat <<-B > /b\n1\nA\n\t2\n\tB\n", nil,
			"FROM a\nRUN [\"/bin/sh\",\"-c\",\"cat <<A > /a && cat <<-B > /b\\n1\\nA\\n\\t2\\nB\"]\n\n\n\n\n", map[string]string{}},
		{"run shebang body runs as a file", "FROM a\nRUN <<EOF\n#!/usr/bin/env python3\nprint(1)\nEOF\n", nil,
			"FROM a\nRUN [\"/bin/sh\",\"-c\"," + jsonString(shebangRunner) + ",\"sh\",\"#!/usr/bin/env python3\\nprint(1)\\n\",\"EOF\"]\n\n\n\n", map[string]string{}},
		{"copy quoted: no expansion", "FROM a\nCOPY --chmod=755 <<'EOF' /usr/local/bin/x\necho $HOME\nEOF\n", nil,
			"FROM a\nCOPY --chmod=755 .authbench-heredocs/L2-0/EOF /usr/local/bin/x\n\n\n",
			map[string]string{".authbench-heredocs/L2-0/EOF": "echo $HOME\n"}},
		{"copy unquoted: ARG, build arg and ENV expanded, chomped", "ARG G=g\nFROM a\nARG G\nARG B=def\nENV E=e-$B\nCOPY <<-EOF ctx.txt /d/\n\t$G ${B} ${E} ${B:+set}\n\tEOF\n",
			map[string]string{"B": "over"},
			"ARG G=g\nFROM a\nARG G\nARG B=def\nENV E=e-$B\nCOPY .authbench-heredocs/L6-0/EOF ctx.txt /d/\n\n\n",
			map[string]string{".authbench-heredocs/L6-0/EOF": "g over e-over set\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			df, err := ParseDockerfile("Dockerfile", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			tr, err := TranslateHeredocs(df, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(tr.Dockerfile.Lines, "\n"); got != tc.want {
				t.Errorf("translated:\n%s\nwant:\n%s", got, tc.want)
			}
			if !reflect.DeepEqual(tr.Files, tc.files) {
				t.Errorf("files = %q, want %q", tr.Files, tc.files)
			}
			// What the builder reads back has no heredoc left and the
			// same instructions on the same lines.
			back, err := ParseDockerfile("Dockerfile", []byte(strings.Join(tr.Dockerfile.Lines, "\n")))
			if err != nil {
				t.Fatal(err)
			}
			for i, in := range back.Instructions {
				if len(in.Heredocs) > 0 || in.Line != df.Instructions[i].Line || in.Cmd != df.Instructions[i].Cmd {
					t.Errorf("reparsed instruction %d = %+v", i, in)
				}
			}
		})
	}
}

func jsonString(s string) string { a := jsonArray([]string{s}); return a[1 : len(a)-1] }

func TestTranslateHeredocsRefuses(t *testing.T) {
	long := strings.Repeat("echo 0123456789\n", MaxBuilderLine/16+10)
	src := "FROM a\n" +
		"RUN <<EOF\n" + long + "EOF\n" +
		"COPY <<EOF /x\n$HOME\nEOF\n" +
		"COPY --from=b <<EOF /y\nz\nEOF\n" +
		"ONBUILD RUN <<EOF\nz\nEOF\n" +
		"RUN <<EOF\nfine\nEOF\n"
	df, err := ParseDockerfile("Dockerfile", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = TranslateHeredocs(df, nil)
	var he *HeredocError
	if !errors.As(err, &he) {
		t.Fatalf("err = %v, want a *HeredocError", err)
	}
	n := strings.Count(long, "\n")
	wantLines := []int{2, n + 4, n + 7, n + 10}
	var got []int
	for _, p := range he.Problems {
		got = append(got, p.Line)
	}
	if !reflect.DeepEqual(got, wantLines) {
		t.Fatalf("problem lines = %v, want %v\n%v", got, wantLines, err)
	}
	for i, want := range []string{"longer than buildah 1.28 reads", "expands $HOME, which no ARG or ENV", "COPY --from with a heredoc", "ONBUILD with a heredoc"} {
		if !strings.Contains(he.Problems[i].Msg, want) {
			t.Errorf("problem %d = %q, want %q", i, he.Problems[i].Msg, want)
		}
	}
	if !strings.Contains(err.Error(), "environment/Dockerfile:2: heredoc the builder cannot run") {
		t.Errorf("message = %q", err)
	}
}
