package sandbox

import (
	"errors"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/policy"
)

// programCandidates returns the files to try, in order, for the program
// name path: path itself when it contains a "/" (absolute, or relative
// to the working directory, as a shell does), otherwise name joined to
// each absolute entry of env's PATH (policy.DefaultPath when there is none).
// Empty and relative PATH entries are skipped: they would name
// directories that depend on where the command happens to start.
// search reports whether PATH was searched.
func programCandidates(path string, env []string) (candidates []string, search bool) {
	if strings.Contains(path, "/") {
		return []string{path}, false
	}
	if path == "" {
		return nil, true
	}
	pathVar, found := policy.DefaultPath, false
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok && !found {
			pathVar, found = v, true
		}
	}
	for _, dir := range filepath.SplitList(pathVar) {
		if !filepath.IsAbs(dir) {
			continue
		}
		candidates = append(candidates, filepath.Join(dir, path))
	}
	return candidates, true
}

// execProgram execs the program the way execvp does, with this process's
// final identity and restrictions, so that every check (search
// permission, Landlock's execute right, the file's mode) is made for the
// command itself and no file can change between a check and its use.
// Candidates that do not exist (ENOENT, ENOTDIR) are skipped; a
// permission refusal (EACCES) is remembered and the search goes on. It
// returns only on failure: StageLookup with ENOENT (not found) or the
// remembered EACCES for a searched name, StageExec otherwise.
func execProgram(spec *Launch) *InitError {
	return runProgram(spec, func(path string) error { return unix.Exec(path, spec.Args, spec.Env) })
}

// runProgram looks the program up as execProgram does, calling run
// (which execs or starts it) on each candidate until one does not fail
// with ENOENT, ENOTDIR or EACCES.
func runProgram(spec *Launch, run func(path string) error) *InitError {
	candidates, search := programCandidates(spec.Path, spec.Env)
	if !search {
		if err := run(spec.Path); err != nil {
			return execError(spec, StageExec, spec.Path, err)
		}
		return nil
	}
	var denied error
	for _, c := range candidates {
		err := run(c)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR):
		case errors.Is(err, unix.EACCES):
			if denied == nil {
				denied = err
			}
		default:
			return execError(spec, StageExec, c, err)
		}
	}
	if denied != nil {
		return execError(spec, StageLookup, spec.Path, denied)
	}
	return &InitError{Stage: StageLookup, Errno: unix.ENOENT, Path: spec.Path, Msg: "command not found in PATH"}
}
