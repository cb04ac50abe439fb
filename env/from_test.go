package env

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/authbench/authbench/tasks"
)

var (
	testBases = Bases{
		Default: BaseConfig{Suite: "bookworm", Variant: "minbase", Arch: "amd64", Mirror: "http://m/debian", Packages: []string{"jq"}},
		Mirror:  "http://m/debian",
	}
	testBase       = testBases.Default.Tag()
	py313, _       = testBases.Config("python-py313")
	py311, _       = testBases.Config("python-py311")
	postgresTag, _ = StandIns[0].Tag(testBases)
)

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
			want: "ARG BASE_IMAGE=python:3.11-slim\nFROM " + testBase + "\nWORKDIR /app\n", how: []string{"image-map python"}},
		{name: "build arg overrides the default",
			src: "ARG BASE_IMAGE=python:3.11-slim\nFROM $BASE_IMAGE\n", args: map[string]string{"BASE_IMAGE": "ubuntu:24.04"},
			m:    BaseMap{"python": "authbench-base", "ubuntu:24.04": "mine:2"},
			want: "ARG BASE_IMAGE=python:3.11-slim\nFROM mine:2\n", how: []string{"image-map ubuntu:24.04"}},
		{name: "exact tag beats repository beats star",
			src:  "FROM docker.io/library/python:3.12\nFROM python:3.11\nFROM alpine:3\n",
			m:    BaseMap{"python:3.12": "mine:2", "python": "localhost/tools:1", "*": "authbench-base"},
			want: "FROM mine:2\nFROM localhost/tools:1\nFROM " + testBase + "\n",
			how:  []string{"image-map python:3.12", "image-map python", "image-map *"}},
		{name: "stages, scratch and local images stay",
			src:  "FROM authbench-base AS build\nFROM localhost/tools:1\nFROM build\nFROM scratch\nCOPY --from=build /x /x\n",
			want: "FROM " + testBase + " AS build\nFROM localhost/tools:1\nFROM build\nFROM scratch\nCOPY --from=build /x /x\n",
			how:  []string{"authbench-base", "local", "stage", "scratch"}},
		{name: "flags and continuation kept in shape",
			src: "FROM --platform=linux/amd64 \\\n  ubuntu:24.04 AS x\nRUN a\n", m: BaseMap{"ubuntu": "authbench-base"},
			want: "FROM --platform=linux/amd64 " + testBase + " AS x\n\nRUN a\n", how: []string{"image-map ubuntu"}},
		{name: "default expansion", src: "ARG V\nFROM ${V:-authbench-base}\n", want: "ARG V\nFROM " + testBase + "\n", how: []string{"authbench-base"}},
		{name: "unmapped image without a default", src: "ARG BASE_IMAGE=redis:7\nFROM ${BASE_IMAGE}\nFROM ubuntu:24.04\n",
			wantErr: "Dockerfile:2: FROM ${BASE_IMAGE} (= redis:7): no such image here"},
		{name: "postgres:15's stand-in", src: "FROM postgres:15-bookworm\n",
			want: "FROM " + postgresTag + "\n", how: []string{"default"}},
		{name: "offline defaults: python by its minor version, ubuntu and debian bookworm",
			src:  "FROM python:3.12-slim\nFROM docker.io/library/python:3.11-slim-bookworm\nFROM ubuntu:24.04\nFROM debian:bookworm-slim\n",
			want: "FROM " + py313.Tag() + "\nFROM " + py311.Tag() + "\nFROM " + testBase + "\nFROM " + testBase + "\n",
			how:  []string{"default", "default", "default", "default"}},
		{name: "the image map beats a default and a pull",
			src: "FROM python:3.12-slim\n", m: BaseMap{"python:3.12-slim": "mine:2"}, want: "FROM mine:2\n", how: []string{"image-map python:3.12-slim"}},
		{name: "mapping to a missing image", src: "FROM ubuntu\n", m: BaseMap{"ubuntu": "nothere:1"},
			wantErr: "FROM ubuntu: no such image here"},
		{name: "empty after expansion", src: "FROM ${NOPE}\n", wantErr: "FROM ${NOPE}"},
		{name: "published family names map to their bases by default",
			src:  "ARG AUTHBENCH_PYTHON_PY313_PLAIN_BASE=authbench-python-py313-plain-base:local\nFROM ${AUTHBENCH_PYTHON_PY313_PLAIN_BASE}\nFROM localhost/authbench-python-py311-plain-base\n",
			want: "ARG AUTHBENCH_PYTHON_PY313_PLAIN_BASE=authbench-python-py313-plain-base:local\nFROM " + py313.Tag() + "\nFROM " + py311.Tag() + "\n",
			how:  []string{"family python-py313", "family python-py311"}},
		{name: "base map overrides a family, and may name one",
			src:  "FROM authbench-python-py313-plain-base:local\nFROM python:3.13-slim\n",
			m:    BaseMap{"authbench-python-py313-plain-base": "authbench-base", "python:3.13-slim": "authbench-python-py313-plain-base"},
			want: "FROM " + testBase + "\nFROM " + py313.Tag() + "\n",
			how:  []string{"image-map authbench-python-py313-plain-base", "image-map python:3.13-slim"}},
		{name: "star does not override a family, authbench-base or a local image",
			src:  "FROM authbench-ubuntu-py-plain-base:local\nFROM authbench-base\nFROM mine:2\nFROM other\n",
			m:    BaseMap{"*": "localhost/tools:1"},
			want: "FROM " + must(testBases.Config("ubuntu-py")).Tag() + "\nFROM " + testBase + "\nFROM mine:2\nFROM localhost/tools:1\n",
			how:  []string{"family ubuntu-py", "authbench-base", "local", "image-map *"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			df, err := tasks.ParseDockerfile("Dockerfile", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			out, froms, err := ResolveFroms(df, tc.args, tc.m, testBases, ImageLookup{Local: local})
			if tc.wantErr != "" {
				var ue *UnresolvedError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "--image-map") {
					t.Fatalf("err = %v, want UnresolvedError with %q and --image-map advice", err, tc.wantErr)
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
	_, _, err := ResolveFroms(df, nil, nil, testBases, ImageLookup{Local: func(string) bool { return false }})
	if err == nil || !strings.Contains(err.Error(), ":1: FROM a:1") || !strings.Contains(err.Error(), ":2: FROM b:2") ||
		!strings.Contains(err.Error(), "[image_map]") {
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

func must(c BaseConfig, err error) BaseConfig {
	if err != nil {
		panic(err)
	}
	return c
}

func TestBaseFamilies(t *testing.T) {
	wantSuite := map[string]string{"tbench-ubuntu-py": "bookworm", "tbench-python-py313": "trixie", "python-py313": "trixie", "ubuntu-py": "bookworm", "python-py311": "bookworm"}
	if len(BaseFamilies) != len(wantSuite) {
		t.Fatalf("families = %v", FamilyNames())
	}
	keys := map[string]string{}
	for _, f := range BaseFamilies {
		cfg := must(testBases.Config(f.Name))
		if cfg.Suite != wantSuite[f.Name] || cfg.Family != f.Name || cfg.Mirror != "http://m/debian" {
			t.Errorf("%s: config = %+v", f.Name, cfg)
		}
		for _, p := range []string{"asciinema", "bc", "ca-certificates", "curl", "jq", "procps", "strace", "tmux", "python3", "python3-pytest"} {
			if !contains(cfg.Packages, p) {
				t.Errorf("%s lacks %s", f.Name, p)
			}
		}
		if contains(cfg.Packages, "redis-server") != (f.Name == "python-py311") {
			t.Errorf("%s: redis-server only for python-py311", f.Name)
		}
		keys[cfg.Key()] += " " + f.Name
		if g, ok := FamilyOf("localhost/" + f.ImageName() + ":local"); !ok || g.Name != f.Name {
			t.Errorf("FamilyOf(%s) = %v %v", f.ImageName(), g, ok)
		}
	}
	// Families with the same content share one base; the others do not.
	want := map[string]bool{" tbench-ubuntu-py ubuntu-py": true, " tbench-python-py313 python-py313": true, " python-py311": true}
	for _, names := range keys {
		if !want[names] {
			t.Errorf("bases shared as %v, want %v", keys, want)
			break
		}
	}
	if _, ok := FamilyOf("authbench-base:latest"); ok {
		t.Error("authbench-base is no family")
	}
	// Without a mirror for the suite, the default base's mirror is used.
	if c := must(Bases{Default: BaseConfig{Suite: "bookworm", Mirror: "http://own/debian"}}.Config("python-py313")); c.Mirror != "http://own/debian" && c.Mirror == DefaultMirror {
		t.Errorf("family mirror = %q", c.Mirror)
	}
	if _, err := testBases.Config("nope"); err == nil || !strings.Contains(err.Error(), "python-py313") {
		t.Errorf("unknown family: err = %v", err)
	}
	// The default base's key does not change with the new Family field.
	if d := DefaultBaseConfig(); d.Family != "" || must(Bases{}.Config(BaseShortName)).Key() != d.Key() {
		t.Error("the default base config changed")
	}
}

// TestResolvePullOrderAndSubstitutions: a configured registry is asked
// after the image map and the builder's storage and before the offline
// defaults (a family's name included); a registry without the image
// falls through to the default; every FROM that did not use the image
// written is a substitution with its reason, a pull with its digest.
func TestResolvePullOrderAndSubstitutions(t *testing.T) {
	src := "FROM python:3.12-slim\nFROM authbench-python-py313-plain-base:local\nFROM postgres:15\nFROM mine:2\nFROM alpine:3\n"
	df, err := tasks.ParseDockerfile("Dockerfile", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	look := ImageLookup{
		Local: func(ref string) bool { return ref == "mine:2" },
		Pull: func(ref string) (string, string, string, error) {
			asked = append(asked, ref)
			if ref == "postgres:15" {
				return "127.0.0.1:5000/library/postgres:15", "sha256:abc", "127.0.0.1:5000", nil
			}
			return "", "", "", ErrNotInRegistries
		},
	}
	out, froms, err := ResolveFroms(df, nil, BaseMap{"alpine": "mine:2"}, testBases, look)
	if err != nil {
		t.Fatal(err)
	}
	want := "FROM " + py313.Tag() + "\nFROM " + py313.Tag() + "\nFROM 127.0.0.1:5000/library/postgres:15\nFROM mine:2\nFROM mine:2\n"
	if string(out) != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", out, want)
	}
	if !reflect.DeepEqual(asked, []string{"python:3.12-slim", "authbench-python-py313-plain-base:local", "postgres:15"}) {
		t.Errorf("pulled %v", asked)
	}
	subs := Substitutions(froms)
	if len(subs) != 4 {
		t.Fatalf("substitutions %+v, want 4 (not the local image)", subs)
	}
	for i, w := range []struct{ ref, used, why string }{
		{"python:3.12-slim", py313.Tag(), "Python 3.13, not 3.12"},
		{"authbench-python-py313-plain-base:local", py313.Tag(), "offline stand-in for python:3.13-slim"},
		{"postgres:15", "127.0.0.1:5000/library/postgres:15@sha256:abc", "pulled from the registry 127.0.0.1:5000"},
		{"alpine:3", "mine:2", "image map: alpine=mine:2"},
	} {
		if s := subs[i]; s.Ref != w.ref || s.Used != w.used || !strings.Contains(s.Why, w.why) {
			t.Errorf("substitution %d = %+v, want %s → %s (%s)", i, s, w.ref, w.used, w.why)
		}
	}
}

func TestOfflineDefault(t *testing.T) {
	for _, tt := range []struct {
		ref, target, why string
	}{
		{"python:3.13-slim", "authbench-python-py313-plain-base", "trixie"},
		{"python:3.12-slim", "authbench-python-py313-plain-base", "Python 3.13, not 3.12"},
		{"python:3.11", "authbench-python-py311-plain-base", "bookworm"},
		{"python:3.9-alpine", "authbench-python-py311-plain-base", "Python 3.11, not 3.9"},
		{"python:latest", "authbench-python-py313-plain-base", "official image"},
		{"ubuntu:24.04", BaseShortName, "stands in for Ubuntu"},
		{"debian:12-slim", BaseShortName, "bookworm"},
		{"debian:trixie", "", ""},
		{"postgres:15", "", ""}, // a stand-in, not a base (TestResolveFroms)
		{"python3:3.12", "", ""},
	} {
		target, why, ok := OfflineDefault(tt.ref)
		if target != tt.target || ok != (tt.target != "") || !strings.Contains(why, tt.why) {
			t.Errorf("OfflineDefault(%q) = %q, %q, %v; want %q with %q", tt.ref, target, why, ok, tt.target, tt.why)
		}
		if ok && strings.Contains(why, "3.13, not 3.13") {
			t.Errorf("%s: %s", tt.ref, why)
		}
	}
}

func TestPullRef(t *testing.T) {
	reg := Registry{Host: "127.0.0.1:5000", Plain: true}
	for ref, want := range map[string]string{
		"python:3.12-slim":                        "127.0.0.1:5000/library/python:3.12-slim",
		"python":                                  "127.0.0.1:5000/library/python:latest",
		"docker.io/library/postgres:15":           "127.0.0.1:5000/library/postgres:15",
		"someone/app:1":                           "127.0.0.1:5000/someone/app:1",
		"127.0.0.1:5000/x/y:2":                    "127.0.0.1:5000/x/y:2",
		"ghcr.io/o/app:1":                         "",
		"localhost/authbench-base:latest":         "",
		"authbench-python-py313-plain-base:local": "127.0.0.1:5000/library/authbench-python-py313-plain-base:local",
	} {
		if got := PullRef(reg, ref); got != want {
			t.Errorf("PullRef(%q) = %q, want %q", ref, got, want)
		}
	}
	for in, want := range map[string]Registry{
		"http://127.0.0.1:5000/": {Host: "127.0.0.1:5000", Plain: true},
		"reg.example:443":        {Host: "reg.example:443"},
		"https://reg.example":    {Host: "reg.example"},
	} {
		if got, err := ParseRegistry(in); err != nil || got != want {
			t.Errorf("ParseRegistry(%q) = %+v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "http://", "a/b", "user@host"} {
		if _, err := ParseRegistry(bad); err == nil {
			t.Errorf("ParseRegistry(%q): want an error", bad)
		}
	}
}

func TestPythonLayout(t *testing.T) {
	got := PythonLayout("3.13", true)
	want := []LayoutLink{
		{"/usr/local/bin/python3.13", "/usr/bin/python3.13"},
		{"/usr/local/bin/python3", "python3.13"},
		{"/usr/local/bin/python", "python3"},
		{"/usr/local/bin/pip", "/usr/bin/pip3"},
		{"/usr/local/bin/pip3", "/usr/bin/pip3"},
		{"/usr/local/bin/pip3.13", "/usr/bin/pip3"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PythonLayout = %v", got)
	}
	if got := PythonLayout("3.11", false); len(got) != 3 {
		t.Errorf("without pip: %v", got)
	}
}

// TestUbuntuFamilyOrder: an Ubuntu family's FROM is built on its pulled
// published base (ImageLookup.Family) only after the image map, the
// family image's own pull and before the Debian stand-in; a failed
// attempt leaves the stand-in; other families are never built so.
func TestUbuntuFamilyOrder(t *testing.T) {
	src := "FROM authbench-ubuntu-py-plain-base:local\nFROM authbench-tbench-ubuntu-py-plain-base:local\nFROM authbench-python-py313-plain-base:local\n"
	df, err := tasks.ParseDockerfile("Dockerfile", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		m      BaseMap
		pulled map[string]bool // images the registry has
		ok     map[string]bool // families the build of succeeds
		how    []string
		asked  []string
	}{
		{name: "registry has ubuntu:24.04", pulled: map[string]bool{"ubuntu:24.04": true}, ok: map[string]bool{"ubuntu-py": true, "tbench-ubuntu-py": true},
			how: []string{"pull r", "pull r", "family python-py313"}, asked: []string{"ubuntu-py", "tbench-ubuntu-py"}},
		{name: "the build fails: the stand-in", ok: map[string]bool{"ubuntu-py": true},
			how: []string{"pull r", "family tbench-ubuntu-py", "family python-py313"}, asked: []string{"ubuntu-py", "tbench-ubuntu-py"}},
		{name: "the family's own image pulled first", pulled: map[string]bool{"authbench-ubuntu-py-plain-base:local": true}, ok: map[string]bool{"tbench-ubuntu-py": true},
			how: []string{"pull r", "pull r", "family python-py313"}, asked: []string{"tbench-ubuntu-py"}},
		{name: "the image map wins", m: BaseMap{"authbench-ubuntu-py-plain-base": "authbench-base"}, ok: map[string]bool{"ubuntu-py": true, "tbench-ubuntu-py": true},
			how: []string{"image-map authbench-ubuntu-py-plain-base", "pull r", "family python-py313"}, asked: []string{"tbench-ubuntu-py"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			look := ImageLookup{
				Local: func(string) bool { return false },
				Pull: func(ref string) (string, string, string, error) {
					if tc.pulled[ref] {
						return "r/" + ref, "sha256:1", "r", nil
					}
					return "", "", "", ErrNotInRegistries
				},
				Family: func(f BaseFamily) (string, string, string, error) {
					asked = append(asked, f.Name)
					if !tc.ok[f.Name] {
						return "", "", "", errors.New("apt-get: no network")
					}
					return "localhost/authbench-" + f.Name + "-on-ubuntu:x", "sha256:2", "r", nil
				},
			}
			_, froms, err := ResolveFroms(df, nil, tc.m, testBases, look)
			if err != nil {
				t.Fatal(err)
			}
			var how []string
			for _, f := range froms {
				how = append(how, f.How)
			}
			if !reflect.DeepEqual(how, tc.how) || !reflect.DeepEqual(asked, tc.asked) {
				t.Errorf("how %v asked %v, want %v %v", how, asked, tc.how, tc.asked)
			}
			for _, f := range froms {
				if f.How == "pull r" && f.Digest == "sha256:2" && !strings.Contains(f.Why, "ubuntu:24.04 pulled from the registry r") {
					t.Errorf("why %q", f.Why)
				}
			}
		})
	}
}

func TestFamilyLayerInstallsOnlyWhatIsMissing(t *testing.T) {
	f, _ := LookupFamily("ubuntu-py")
	df := familyLayer(f, "r/library/ubuntu:24.04")
	if !strings.HasPrefix(df, "FROM r/library/ubuntu:24.04\nRUN ") || !strings.Contains(df, "for p in "+strings.Join(f.Packages, " ")+";") ||
		!strings.Contains(df, `if [ -n "$missing" ]; then apt-get update`) {
		t.Errorf("layer:\n%s", df)
	}
	a, b := familyOnPulledTag(f, "r/library/ubuntu:24.04", "sha256:1"), familyOnPulledTag(f, "r/library/ubuntu:24.04", "sha256:2")
	if a == b || !strings.HasPrefix(a, "localhost/authbench-ubuntu-py-on-ubuntu:") {
		t.Errorf("tags %s %s", a, b)
	}
	if _, isFamily := FamilyOf(a); isFamily {
		t.Errorf("%s reads as the family's published name", a)
	}
	py, _ := LookupFamily("python-py313")
	if py.OnUbuntu() || !f.OnUbuntu() {
		t.Error("OnUbuntu")
	}
}
