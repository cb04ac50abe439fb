package env

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/authbench/authbench/tasks"
)

const testBase = "localhost/authbench-base:0123456789abcdef"

func TestResolveFroms(t *testing.T) {
	localImages := map[string]bool{"localhost/tools:1": true, "mine:2": true}
	local := func(ref string) bool { return localImages[ref] }
	cases := []struct {
		name    string
		src     string
		args    map[string]string
		m       BaseMap
		want    string // rewritten Dockerfile
		how     []string
		wantErr string
	}{
		{name: "authbench-base short name",
			src: "FROM authbench-base\nRUN true\n", want: "FROM " + testBase + "\nRUN true\n", how: []string{"authbench-base"}},
		{name: "authbench-base any tag and registry",
			src: "FROM localhost/authbench-base:bookworm AS b\n", want: "FROM " + testBase + " AS b\n", how: []string{"authbench-base"}},
		{name: "ARG default mapped by repository",
			src:  "ARG BASE_IMAGE=python:3.11-slim\nFROM ${BASE_IMAGE}\nWORKDIR /app\n",
			m:    BaseMap{"python": "authbench-base"},
			want: "ARG BASE_IMAGE=python:3.11-slim\nFROM " + testBase + "\nWORKDIR /app\n", how: []string{"base-map python"}},
		{name: "build arg overrides the default",
			src: "ARG BASE_IMAGE=python:3.11-slim\nFROM $BASE_IMAGE\n", args: map[string]string{"BASE_IMAGE": "ubuntu:24.04"},
			m:    BaseMap{"python": "authbench-base", "ubuntu:24.04": "mine:2"},
			want: "ARG BASE_IMAGE=python:3.11-slim\nFROM mine:2\n", how: []string{"base-map ubuntu:24.04"}},
		{name: "exact tag beats repository beats star",
			src:  "FROM docker.io/library/python:3.12\nFROM python:3.11\nFROM debian:12\n",
			m:    BaseMap{"python:3.12": "mine:2", "python": "localhost/tools:1", "*": "authbench-base"},
			want: "FROM mine:2\nFROM localhost/tools:1\nFROM " + testBase + "\n",
			how:  []string{"base-map python:3.12", "base-map python", "base-map *"}},
		{name: "stages, scratch and local images stay",
			src:  "FROM authbench-base AS build\nFROM localhost/tools:1\nFROM build\nFROM scratch\nCOPY --from=build /x /x\n",
			want: "FROM " + testBase + " AS build\nFROM localhost/tools:1\nFROM build\nFROM scratch\nCOPY --from=build /x /x\n",
			how:  []string{"authbench-base", "local", "stage", "scratch"}},
		{name: "flags and continuation kept in shape",
			src: "FROM --platform=linux/amd64 \\\n  ubuntu:24.04 AS x\nRUN a\n", m: BaseMap{"ubuntu": "authbench-base"},
			want: "FROM --platform=linux/amd64 " + testBase + " AS x\n\nRUN a\n", how: []string{"base-map ubuntu"}},
		{name: "default expansion", src: "ARG V\nFROM ${V:-authbench-base}\n", want: "ARG V\nFROM " + testBase + "\n", how: []string{"authbench-base"}},
		{name: "unmapped image", src: "ARG BASE_IMAGE=python:3.11-slim\nFROM ${BASE_IMAGE}\nFROM ubuntu:24.04\n",
			wantErr: "Dockerfile:2: FROM ${BASE_IMAGE} (= python:3.11-slim): no such image here"},
		{name: "mapping to a missing image", src: "FROM ubuntu\n", m: BaseMap{"ubuntu": "nothere:1"},
			wantErr: "FROM ubuntu: no such image here"},
		{name: "empty after expansion", src: "FROM ${NOPE}\n", wantErr: "FROM ${NOPE}"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			df, err := tasks.ParseDockerfile("Dockerfile", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			out, froms, err := ResolveFroms(df, tc.args, tc.m, testBase, local)
			if tc.wantErr != "" {
				var ue *UnresolvedError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "--base-map") {
					t.Fatalf("err = %v, want UnresolvedError with %q and --base-map advice", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("rewritten:\n%s\nwant:\n%s", out, tc.want)
			}
			var how []string
			for _, f := range froms {
				how = append(how, f.How)
			}
			if !reflect.DeepEqual(how, tc.how) {
				t.Errorf("how = %v, want %v", how, tc.how)
			}
		})
	}
}

func TestUnresolvedErrorListsEveryFrom(t *testing.T) {
	df, _ := tasks.ParseDockerfile("Dockerfile", []byte("FROM a:1\nFROM b:2\n"))
	_, _, err := ResolveFroms(df, nil, nil, testBase, func(string) bool { return false })
	if err == nil || !strings.Contains(err.Error(), ":1: FROM a:1") || !strings.Contains(err.Error(), ":2: FROM b:2") ||
		!strings.Contains(err.Error(), "[base_map]") {
		t.Errorf("err = %v", err)
	}
}

func TestParseBaseMap(t *testing.T) {
	m, err := ParseBaseMap([]string{"python=authbench-base", " ubuntu:24.04 = mine:1 "})
	if err != nil || !reflect.DeepEqual(m, BaseMap{"python": "authbench-base", "ubuntu:24.04": "mine:1"}) {
		t.Errorf("ParseBaseMap = %v, %v", m, err)
	}
	for _, bad := range []string{"python", "=x", "x=", "a b=c"} {
		if _, err := ParseBaseMap([]string{bad}); err == nil {
			t.Errorf("ParseBaseMap(%q): want an error", bad)
		}
	}
	if got := (BaseMap{"a": "1", "b": "2"}).Merge(BaseMap{"b": "3"}); !reflect.DeepEqual(got, BaseMap{"a": "1", "b": "3"}) {
		t.Errorf("Merge = %v", got)
	}
}

func TestExpandVars(t *testing.T) {
	vars := map[string]string{"A": "x", "B_2": "y", "E": ""}
	for in, want := range map[string]string{
		"$A": "x", "${A}:${B_2}": "x:y", "${E:-d}": "d", "${A:-d}": "x", "${A:+alt}": "alt", "${E:+alt}": "",
		"$NOPE-1": "-1", `\$A`: "$A", "a$": "a$", "${A": "${A",
	} {
		if got := expandVars(in, vars); got != want {
			t.Errorf("expandVars(%q) = %q, want %q", in, got, want)
		}
	}
}
