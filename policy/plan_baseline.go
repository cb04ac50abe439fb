package policy

import (
	"fmt"
	"slices"
)

// Baseline is what a run may always do on top of its policy: a task
// spec's implicit_permissions, or a documented default when there is no
// spec. It counts neither for nor against a policy in scoring.
type Baseline struct {
	// Name is "default", "none" or the spec's file name.
	Name string
	// Permissions are the baseline's patterns.
	Permissions Permissions
	// AsPolicy: under published semantics the baseline's patterns are
	// compiled with the policy's rules, as the published launcher takes
	// a spec's implicit_permissions like the policy's own entries (a
	// missing implicit read grants its nearest existing ancestor). Set by
	// SpecBaseline; the default baseline is always precise.
	AsPolicy bool
}

// Baseline names accepted by ParseBaselineName.
const (
	BaselineDefault = "default"
	BaselineNone    = "none"
)

// sharedLibraryDirs are the directories the dynamic loader loads shared
// libraries from.
var sharedLibraryDirs = [...]string{
	"/lib/**", "/lib64/**", "/lib32/**", "/usr/lib/**", "/usr/lib64/**",
	"/usr/lib32/**", "/usr/local/lib/**",
}

// SharedLibraryDirs returns the shared-library directories every plan
// may read (sandbox essentials): what the dynamic loader maps executable
// for every dynamically linked program.
func SharedLibraryDirs() []Pattern {
	out := make([]Pattern, len(sharedLibraryDirs))
	for i, s := range sharedLibraryDirs {
		out[i] = MustPattern(s)
	}
	return out
}

// sandboxEssentials is what any dynamically linked program needs to start
// at all; every plan includes it, even with the "none" baseline. Entries
// that do not exist in an environment are skipped silently.
var sandboxEssentials = [len(Axes)][]string{
	Read: append(slices.Clone(sharedLibraryDirs[:]),
		// the loader's configuration
		"/etc/ld.so.cache", "/etc/ld.so.preload", "/etc/ld.so.conf", "/etc/ld.so.conf.d/**",
		"/dev/null",
	),
	Write: {"/dev/null"},
	Execute: {
		// the dynamic loader: the kernel opens it for execution. Exact
		// names (x86-64, i386, arm64, armhf, musl), so that no directory
		// has to be listed at launch.
		"/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux.so.2", "/lib/ld-linux-aarch64.so.1",
		"/lib/ld-linux-armhf.so.3", "/lib/ld-musl-x86_64.so.1", "/lib/ld-musl-aarch64.so.1",
	},
}

// defaultBaseline is the "default" runtime baseline for runs without a
// spec: name-service and time-zone files, certificates, terminfo and
// locales, /proc (other processes' private files stay closed: Landlock
// refuses ptrace-class access across domains), the CPU list in /sys, the
// harmless devices and the terminal, a scratch /tmp and /dev/shm that
// can be read and written but not executed, and /bin/sh so that a
// baseline-only policy can run a shell command. Nothing is
// executable besides /bin/sh; nothing in /etc is writable.
var defaultBaseline = [len(Axes)][]string{
	Read: {
		"/etc/localtime", "/etc/timezone", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group",
		"/etc/hosts", "/etc/host.conf", "/etc/resolv.conf", "/etc/gai.conf",
		"/etc/services", "/etc/protocols", "/etc/mime.types",
		"/etc/ssl/**", "/etc/ca-certificates/**", "/usr/share/ca-certificates/**",
		"/usr/share/zoneinfo/**", "/usr/share/terminfo/**", "/etc/terminfo/**",
		"/usr/share/locale/**", "/usr/share/i18n/**", "/etc/locale.alias",
		"/proc/**", "/sys/devices/system/cpu/**",
		"/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
		"/dev/tty", "/dev/ptmx", "/dev/pts/**",
		"/dev/shm/**", "/tmp/**",
	},
	Write: {
		"/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts/**",
		"/dev/shm/**", "/tmp/**",
	},
	Execute: {"/bin/sh", "/usr/bin/sh"},
}

// mustPermissions builds Permissions from built-in pattern lists.
func mustPermissions(lists [len(Axes)][]string) Permissions {
	var p Permissions
	for _, a := range Axes {
		for _, s := range lists[a] {
			p[a] = append(p[a], MustPattern(s))
		}
	}
	return p
}

// DefaultBaseline returns the documented default runtime baseline.
func DefaultBaseline() Baseline {
	return Baseline{Name: BaselineDefault, Permissions: mustPermissions(defaultBaseline)}
}

// NoBaseline returns the empty baseline: the plan holds the policy and
// the sandbox essentials only.
func NoBaseline() Baseline { return Baseline{Name: BaselineNone} }

// SpecBaseline returns a spec's implicit_permissions as the baseline.
func SpecBaseline(spec *Spec) Baseline {
	return Baseline{Name: spec.Source, Permissions: spec.Implicit, AsPolicy: true}
}

// SandboxEssentials returns what every plan includes so that a program
// can start: the dynamic loader (execute), shared libraries and the
// loader cache (read), and /dev/null.
func SandboxEssentials() Permissions { return mustPermissions(sandboxEssentials) }

// LoadBaseline resolves a --baseline argument: "default", "none", or the
// path of a permission spec whose implicit_permissions are used. An
// invalid spec gives its *ValidationError.
func LoadBaseline(arg string) (Baseline, error) {
	switch arg {
	case "", BaselineDefault:
		return DefaultBaseline(), nil
	case BaselineNone:
		return NoBaseline(), nil
	}
	spec, err := LoadSpec(arg)
	if err != nil {
		return Baseline{}, fmt.Errorf("baseline: %w", err)
	}
	return SpecBaseline(spec), nil
}
