package sandbox

//go:generate go run ./internal/mksysnum

import (
	"fmt"
	"runtime"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// seccompArch describes one architecture the seccomp compiler supports.
type seccompArch struct {
	// goarch is the Go name ("amd64"); aliases are Docker's other names.
	goarch  string
	aliases []string
	// scmp is the libseccomp/OCI name.
	scmp specs.Arch
	// auditArch is the AUDIT_ARCH_* value in seccomp_data.arch.
	auditArch uint32
	// x32Bit, when non-zero, marks syscall numbers of the x32 ABI, which
	// share the native audit arch and must be refused separately.
	x32Bit uint32
	// numbers maps syscall names to numbers (built on first use).
	numbers func() map[string]int
}

// seccompArches are the supported architectures. Calls made through any
// other ABI (32-bit x86 via int 0x80, x32, 32-bit ARM) kill the process:
// their syscall numbers mean different calls.
var seccompArches = []seccompArch{
	{goarch: "amd64", aliases: []string{"x86_64"}, scmp: specs.ArchX86_64,
		auditArch: 0xc000003e, x32Bit: 0x40000000, numbers: syscallNumbersAmd64},
	{goarch: "arm64", aliases: []string{"aarch64"}, scmp: specs.ArchAARCH64,
		auditArch: 0xc00000b7, numbers: syscallNumbersArm64},
}

// archPrivateSyscalls are architecture-private calls that profiles name
// but that golang.org/x/sys does not list (ARM's __ARM_NR_* and a few
// PowerPC ones). They are known names that never exist on a supported
// architecture.
var archPrivateSyscalls = map[string]bool{
	"breakpoint": true, "cacheflush": true, "set_tls": true, "usr26": true, "usr32": true,
	"swapcontext": true, "switch_endian": true, "subpage_prot": true, "sys_debug_setcontext": true,
	"multiplexer": true, "rtas": true, "spu_create": true, "spu_run": true,
}

// lookupArch returns the architecture named goarch ("" for this one).
func lookupArch(goarch string) (*seccompArch, error) {
	if goarch == "" {
		goarch = runtime.GOARCH
	}
	for i := range seccompArches {
		if seccompArches[i].goarch == goarch {
			return &seccompArches[i], nil
		}
	}
	return nil, fmt.Errorf("seccomp: architecture %s is not supported (only amd64 and arm64)", goarch)
}

// isNamed reports whether name ("amd64", "x86_64", "SCMP_ARCH_X86_64")
// names the architecture.
func (a *seccompArch) isNamed(name string) bool {
	if name == a.goarch || name == string(a.scmp) {
		return true
	}
	for _, al := range a.aliases {
		if name == al {
			return true
		}
	}
	return false
}
