package tasks

import (
	"reflect"
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
	if run := df.Instructions[2]; run.Line != 5 || run.EndLine != 7 || run.Args != "echo a && echo b" {
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

func TestParseDockerfileErrors(t *testing.T) {
	for name, src := range map[string]string{
		"dangling continuation": "FROM x\nRUN a \\\n",
		"bad escape":            "# escape=x\nFROM x\n",
	} {
		if _, err := ParseDockerfile("Dockerfile", []byte(src)); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
	df, _ := ParseDockerfile("Dockerfile", []byte("FROM a b c d\n"))
	if _, err := df.Froms(); err == nil {
		t.Error("FROM with 4 words: want an error")
	}
}
