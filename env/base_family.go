package env

import (
	"fmt"
	"runtime"
	"strings"
)

// BaseFamily is one of the base images the published AuthBench dataset
// builds on: its Dockerfiles say
//
//	ARG AUTHBENCH_<FAMILY>_PLAIN_BASE=authbench-<family>-plain-base:local
//	FROM ${AUTHBENCH_<FAMILY>_PLAIN_BASE}
//
// and authbench maps that name, by default, to a local Debian base with
// the tools the published bases install.
type BaseFamily struct {
	// Name is the family, e.g. "python-py313".
	Name string `json:"name"`
	// Suite is the Debian release it is made from.
	Suite string `json:"suite"`
	// Packages are installed on top of debootstrap's minbase.
	Packages []string `json:"packages"`
	// Doc says what the family is and how it differs from the published
	// base.
	Doc string `json:"doc"`
	// Published is the image the published base is built on; the local
	// base stands in for it offline (recorded as a substitution).
	Published string `json:"published"`
	// PythonLayout lays Python out as the official python images do
	// (/usr/local/bin/python3, python3.N, pip), with Debian's pip.
	PythonLayout bool `json:"python_layout,omitempty"`
}

// StandIn says, for a run's records, what the local base is in place of
// the published one.
func (f BaseFamily) StandIn() string {
	return fmt.Sprintf("offline stand-in for %s: Debian %s (%s)", f.Published, f.Suite, f.Doc)
}

// FamilyTools are the packages every family base has: the tools the
// published bases install (asciinema, bc, ca-certificates, curl, jq,
// procps, strace, tmux, python3 with pytest), and `python` as python3.
var FamilyTools = []string{
	"asciinema", "bc", "ca-certificates", "curl", "jq", "procps", "python-is-python3",
	"python3", "python3-pytest", "strace", "tmux",
}

// BaseFamilies are the families of the published dataset (with the
// number of its 120 tasks that use each).
var BaseFamilies = []BaseFamily{
	{Name: "tbench-ubuntu-py", Suite: "bookworm", Packages: FamilyTools, Published: "ubuntu:24.04",
		Doc: "Terminal-Bench's Ubuntu + Python base (75 tasks); here a Debian stand-in: bookworm, Python 3.11, gcc 12"},
	{Name: "tbench-python-py313", Suite: "trixie", Packages: pythonTools, Published: "python:3.13-slim", PythonLayout: true,
		Doc: "Terminal-Bench's Python 3.13 base (28 tasks); here Debian trixie, Python 3.13 laid out as in python:3.13-slim"},
	{Name: "python-py313", Suite: "trixie", Packages: pythonTools, Published: "python:3.13-slim", PythonLayout: true,
		Doc: "Python 3.13 base (7 tasks); here Debian trixie, Python 3.13 laid out as in python:3.13-slim"},
	{Name: "ubuntu-py", Suite: "bookworm", Packages: FamilyTools, Published: "ubuntu:24.04",
		Doc: "Ubuntu + Python base (5 tasks); here a Debian stand-in: bookworm, Python 3.11, gcc 12"},
	{Name: "python-py311", Suite: "bookworm", Packages: append(append([]string(nil), pythonTools...), "redis-server"),
		Published: "python:3.11-slim", PythonLayout: true,
		Doc: "Python 3.11 base with redis-server (4 tasks); here Debian bookworm, Python 3.11 laid out as in python:3.11-slim"},
}

// pythonTools are FamilyTools and pip, for the families that stand in for
// the official python images.
var pythonTools = append(append([]string(nil), FamilyTools...), "python3-pip")

// LookupFamily returns the family called name.
func LookupFamily(name string) (BaseFamily, bool) {
	for _, f := range BaseFamilies {
		if f.Name == name {
			return f, true
		}
	}
	return BaseFamily{}, false
}

// FamilyNames lists the families' names.
func FamilyNames() []string {
	out := make([]string, len(BaseFamilies))
	for i, f := range BaseFamilies {
		out[i] = f.Name
	}
	return out
}

// ImageName is the repository the published Dockerfiles name the family
// by: authbench-<family>-plain-base (tag "local").
func (f BaseFamily) ImageName() string { return "authbench-" + f.Name + "-plain-base" }

// FamilyOf returns the family whose image ref names, whatever its tag
// (with or without the "localhost/" registry).
func FamilyOf(ref string) (BaseFamily, bool) {
	repo := strings.TrimPrefix(repoOf(trimDefaultRegistry(ref)), "localhost/")
	for _, f := range BaseFamilies {
		if repo == f.ImageName() {
			return f, true
		}
	}
	return BaseFamily{}, false
}

// Bases says how the base images a build may need are made: the default
// base (FROM authbench-base) and the family bases.
type Bases struct {
	// Default is the config of authbench-base; DefaultBaseConfig() when
	// its Suite is empty.
	Default BaseConfig
	// Mirror is the Debian mirror of the family bases; "" means the one
	// the machine's apt sources use for the family's suite, else the
	// default base's.
	Mirror string
}

// Config returns the config of the base called name: BaseShortName for
// the default base, else a family's name.
func (b Bases) Config(name string) (BaseConfig, error) {
	if name == BaseShortName || name == "" {
		if b.Default.Suite == "" {
			return DefaultBaseConfig(), nil
		}
		return b.Default, nil
	}
	f, ok := LookupFamily(name)
	if !ok {
		return BaseConfig{}, fmt.Errorf("unknown base family %q (known: %s)", name, strings.Join(FamilyNames(), ", "))
	}
	mirror := b.Mirror
	if mirror == "" {
		mirror = MachineMirror(f.Suite)
	}
	if mirror == DefaultMirror && b.Default.Mirror != "" {
		// The machine's sources name no mirror for this suite: the
		// default base's mirror (the machine's own) serves every suite.
		mirror = b.Default.Mirror
	}
	return BaseConfig{
		Suite: f.Suite, Variant: "minbase", Arch: DebianArch(runtime.GOARCH), Mirror: mirror,
		Packages: append([]string(nil), f.Packages...), Family: f.Name, PythonLayout: f.PythonLayout,
	}, nil
}
