package sandbox

//go:generate go run ./internal/mkdefault

import "runtime"

// DefaultFilter returns the default profile compiled for this machine.
// The default profile has no capability, architecture or kernel
// conditions, so its program depends on the architecture only and is
// precompiled (seccomp_default_table.go); callers get the same Filter
// CompileProfile(DefaultProfile(), ...) would return, without parsing
// and compiling at every start.
func DefaultFilter() (*Filter, error) {
	prog, ok := defaultFilters[runtime.GOARCH]
	if !ok {
		return CompileProfile(DefaultProfile(), CompileOptions{})
	}
	return &Filter{Profile: "default", Arch: runtime.GOARCH, Flags: filterFlagTSync,
		Program: append([][4]uint32(nil), prog...)}, nil
}
