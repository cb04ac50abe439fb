package env

import (
	"fmt"
	"strconv"
	"strings"
)

// OfflineDefault is the documented local stand-in for a Docker Hub image
// that no image map entry, local image or registry provides (ref is
// normalised: "repo:tag"). Pure. The defaults:
//
//   - python:3.N[-variant] → a Python family base, Python laid out as in
//     the official image (/usr/local/bin/python3, python3.N, pip): N ≥ 12
//     the python-py313 base (Debian trixie, Python 3.13), N ≤ 11 the
//     python-py311 base (Debian bookworm, Python 3.11); python:latest,
//     python:3 and python:slim the python-py313 base. When N is not the
//     base's own Python, why says so.
//   - ubuntu:* and debian:bookworm / debian:12 → authbench-base (Debian
//     bookworm), a Debian stand-in for Ubuntu.
//
// postgres:15 has a stand-in built here (StandIns). Anything else
// (redis:7, node:20, …) has no default: map it with --image-map or serve
// it from a registry.
func OfflineDefault(ref string) (target, why string, ok bool) {
	repo, tag := repoOf(ref), strings.TrimPrefix(ref[len(repoOf(ref)):], ":")
	switch repo {
	case "python":
		f := pythonFamily(tag)
		why = fmt.Sprintf("offline default: no registry has %s; Debian %s's Python laid out as in the official image (family %s)", ref, f.Suite, f.Name)
		if want, have := pythonMinor(tag), pythonMinor(strings.TrimPrefix(f.Published, "python:")); want != 0 && want != have {
			why += fmt.Sprintf("; Python 3.%d, not 3.%d", have, want)
		}
		return f.ImageName(), why, true
	case "ubuntu":
		return BaseShortName, fmt.Sprintf("offline default: no registry has %s; Debian bookworm stands in for Ubuntu", ref), true
	case "debian":
		if strings.HasPrefix(tag, "bookworm") || tag == "12" || strings.HasPrefix(tag, "12-") || strings.HasPrefix(tag, "12.") {
			return BaseShortName, fmt.Sprintf("offline default: no registry has %s; the local Debian bookworm base", ref), true
		}
	}
	return "", "", false
}

// pythonFamily is the family base that stands in for python:TAG.
func pythonFamily(tag string) BaseFamily {
	name := "python-py313"
	if n := pythonMinor(tag); n != 0 && n <= 11 {
		name = "python-py311"
	}
	f, _ := LookupFamily(name)
	return f
}

// pythonMinor reads N of a "3.N…" tag (0 when the tag names none).
func pythonMinor(tag string) int {
	rest, ok := strings.CutPrefix(tag, "3.")
	if !ok {
		return 0
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(rest[:end])
	if err != nil {
		return 0
	}
	return n
}
