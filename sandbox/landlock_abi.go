package sandbox

import "github.com/authbench/authbench/policy"

// Scope is a set of Landlock IPC scopes (LANDLOCK_SCOPE_*).
type Scope uint64

// The Landlock scopes (ABI 6).
const (
	// ScopeAbstractUnixSocket refuses connecting to an abstract unix
	// socket created outside the sandbox.
	ScopeAbstractUnixSocket Scope = 1 << iota
	// ScopeSignal refuses sending a signal to a process outside it.
	ScopeSignal
)

var scopeNames = [...]string{"abstract_unix_socket", "signal"}

// Names lists the scopes.
func (s Scope) Names() []string {
	var out []string
	for i, n := range scopeNames {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// landlockABI is what one Landlock ABI version can restrict.
type landlockABI struct {
	version int
	// fs are the filesystem rights it handles.
	fs policy.Access
	// scopes are the IPC scopes it can restrict.
	scopes Scope
	// logFlags reports whether landlock_restrict_self takes the audit
	// logging flags.
	logFlags bool
	// note says what the version added.
	note string
}

// abiV1FS are the rights of the first Landlock ABI.
const abiV1FS = policy.AccessExecute | policy.AccessWriteFile | policy.AccessReadFile |
	policy.AccessReadDir | policy.AccessRemoveDir | policy.AccessRemoveFile |
	policy.AccessMakeChar | policy.AccessMakeDir | policy.AccessMakeReg |
	policy.AccessMakeSock | policy.AccessMakeFifo | policy.AccessMakeBlock |
	policy.AccessMakeSym

// landlockABIs is the Landlock ABI history as authbench uses it. A kernel
// newer than the last entry is used as the last entry.
var landlockABIs = []landlockABI{
	{version: 1, fs: abiV1FS,
		note: "files and directories: execute, read, write, list, create and remove entries; linking or renaming across directories is always refused"},
	{version: 2, fs: abiV1FS | policy.AccessRefer,
		note: "refer: linking and renaming across directories become a right"},
	{version: 3, fs: abiV1FS | policy.AccessRefer | policy.AccessTruncate,
		note: "truncate becomes a right (before, truncate(2) and O_TRUNC were unrestricted)"},
	{version: 4, fs: abiV1FS | policy.AccessRefer | policy.AccessTruncate,
		note: "TCP bind/connect rights (not used by authbench)"},
	{version: 5, fs: abiV1FS | policy.AccessRefer | policy.AccessTruncate | policy.AccessIoctlDev,
		note: "ioctl on device files becomes a right"},
	{version: 6, fs: abiV1FS | policy.AccessRefer | policy.AccessTruncate | policy.AccessIoctlDev,
		scopes: ScopeAbstractUnixSocket | ScopeSignal,
		note:   "scopes: abstract unix sockets and signals to processes outside the sandbox are refused"},
	{version: 7, fs: abiV1FS | policy.AccessRefer | policy.AccessTruncate | policy.AccessIoctlDev,
		scopes: ScopeAbstractUnixSocket | ScopeSignal, logFlags: true,
		note: "audit logging flags"},
	{version: 8, fs: abiV1FS | policy.AccessRefer | policy.AccessTruncate | policy.AccessIoctlDev,
		scopes: ScopeAbstractUnixSocket | ScopeSignal, logFlags: true,
		note: "enforcement on every thread at once (TSYNC)"},
	{version: 9, fs: abiV1FS | policy.AccessRefer | policy.AccessTruncate | policy.AccessIoctlDev | policy.AccessResolveUnix,
		scopes: ScopeAbstractUnixSocket | ScopeSignal, logFlags: true,
		note: "resolve_unix: connecting to pathname unix sockets served from outside becomes a right (before, unrestricted)"},
}

// abiFor returns the table entry for the kernel's ABI version (0: none).
func abiFor(kernel int) (landlockABI, bool) {
	if kernel <= 0 {
		return landlockABI{}, false
	}
	if kernel > len(landlockABIs) {
		kernel = len(landlockABIs)
	}
	return landlockABIs[kernel-1], true
}

// landlockErratum is a fix of Landlock's kernel code that user space can
// detect: landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_ERRATA)
// sets bit number-1 for every erratum the running kernel has fixed.
type landlockErratum struct {
	number int
	// abi is the ABI version whose feature the erratum concerns; kernels
	// below it are not affected.
	abi int
	// useAtMost, when set, is the ABI version authbench uses on an
	// affected kernel without the fix (go-landlock's rule: the feature is
	// not relied on).
	useAtMost int
	note      string
}

// landlockErrata are the known errata (the kernel's
// security/landlock/errata/abi-*.h), with what authbench does when one is
// not fixed.
var landlockErrata = []landlockErratum{
	{number: 1, abi: 4,
		note: "erratum 1 (TCP socket identification) not fixed: TCP rights also applied to other sockets; authbench uses no network rights"},
	{number: 2, abi: 6, useAtMost: 5,
		note: "erratum 2 (scoped signals) not fixed: the signal scope refuses signals between threads of one process, so the ABI-6 scopes are not used and abstract unix sockets and signals to processes outside stay unrestricted"},
	{number: 3, abi: 1,
		note: "erratum 3 (disconnected directories) not fixed: a directory moved out of a bind mount's source may be checked against the wrong hierarchy"},
}

// effectiveABI returns the ABI version authbench relies on for a kernel
// with Landlock ABI version kernel whose fixed errata are the bits of
// errata, and a note per erratum that affects the kernel and is not
// fixed. It is pure: tests pass any combination.
func effectiveABI(kernel, errata int) (int, []string) {
	abi := kernel
	var notes []string
	for _, e := range landlockErrata {
		if kernel < e.abi || errata&(1<<(e.number-1)) != 0 {
			continue
		}
		notes = append(notes, e.note)
		if e.useAtMost > 0 && abi > e.useAtMost {
			abi = e.useAtMost
		}
	}
	return abi, notes
}
