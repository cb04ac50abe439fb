package modelconfig

import (
	"fmt"
	"regexp"
	"strings"
)

// InstalledName is an installed harness's agent name,
// installed:NAME[@VERSION][:MODEL], parsed.
type InstalledName struct {
	// Harness is NAME.
	Harness string
	// Version is the npm version pinned (@VERSION); empty: the harness
	// table's.
	Version string
	// Model is MODEL; empty: the configuration's.
	Model string
}

// npmVersion is an exact npm (semver 2) version: a pin names one
// release, never a range or a dist-tag, whose target would move under
// the cached layer.
var npmVersion = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

// harnessName is a harness's NAME.
var harnessName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// ParseInstalledName parses installed:NAME[@VERSION][:MODEL], the one
// parser of that form: ok is false when s does not start with
// InstalledPrefix; a NAME that is not a name, or a VERSION that is not
// an exact npm version (semver: 1.2.3, 1.2.3-beta.1), is an error.
// Whether NAME is a known harness is the harness table's to say
// (package agent/installed).
func ParseInstalledName(s string) (n InstalledName, ok bool, err error) {
	rest, found := strings.CutPrefix(s, InstalledPrefix)
	if !found {
		return InstalledName{}, false, nil
	}
	head, model, _ := strings.Cut(rest, ":")
	name, version, pinned := strings.Cut(head, "@")
	if !harnessName.MatchString(name) {
		return InstalledName{}, true, fmt.Errorf("%q: want installed:NAME[@VERSION][:MODEL], NAME of lower-case letters, digits and '-'", s)
	}
	if pinned && !npmVersion.MatchString(version) {
		return InstalledName{}, true, fmt.Errorf("%q: version %q is not an exact npm version (MAJOR.MINOR.PATCH[-PRERELEASE])", s, version)
	}
	return InstalledName{Harness: name, Version: version, Model: model}, true, nil
}
