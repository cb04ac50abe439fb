package sandbox

import (
	"bytes"
	_ "embed" // the default profile
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// defaultProfileJSON is profiles/default.json: authbench's default
// seccomp profile.
//
//go:embed profiles/default.json
var defaultProfileJSON []byte

// maxProfileBytes bounds a profile file.
const maxProfileBytes = 4 << 20

// Profile is a seccomp profile in the OCI runtime-spec LinuxSeccomp
// format, with the extensions of Docker and Podman profile files
// (archMap, per-rule includes/excludes and comments, the old single
// "name" key), so their profiles load unchanged.
type Profile struct {
	DefaultAction   specs.LinuxSeccompAction `json:"defaultAction"`
	DefaultErrnoRet *uint                    `json:"defaultErrnoRet,omitempty"`
	Architectures   []specs.Arch             `json:"architectures,omitempty"`
	ArchMap         []ArchMapEntry           `json:"archMap,omitempty"`
	Flags           []specs.LinuxSeccompFlag `json:"flags,omitempty"`
	ListenerPath    string                   `json:"listenerPath,omitempty"`
	ListenerMeta    string                   `json:"listenerMetadata,omitempty"`
	Syscalls        []SyscallRule            `json:"syscalls,omitempty"`
	Comment         string                   `json:"comment,omitempty"`

	// Source names where the profile came from (a file, or "default").
	Source string `json:"-"`
}

// ArchMapEntry is Docker's description of an architecture and the
// 32-bit ABIs that run on it.
type ArchMapEntry struct {
	Architecture     specs.Arch   `json:"architecture"`
	SubArchitectures []specs.Arch `json:"subArchitectures"`
}

// SyscallRule is one entry of a profile's "syscalls" list.
type SyscallRule struct {
	Names    []string                 `json:"names,omitempty"`
	Name     string                   `json:"name,omitempty"` // Docker ≤1.12 profiles
	Action   specs.LinuxSeccompAction `json:"action"`
	ErrnoRet *uint                    `json:"errnoRet,omitempty"`
	Args     []specs.LinuxSeccompArg  `json:"args,omitempty"`
	Comment  string                   `json:"comment,omitempty"`
	Includes *RuleFilter              `json:"includes,omitempty"`
	Excludes *RuleFilter              `json:"excludes,omitempty"`
}

// RuleFilter is Docker's condition on when a rule applies: on these
// architectures (Go names such as "amd64"), with these capabilities, on
// kernels at least this version.
type RuleFilter struct {
	Arches    []string `json:"arches,omitempty"`
	Caps      []string `json:"caps,omitempty"`
	MinKernel string   `json:"minKernel,omitempty"`
}

// names returns every syscall name of the rule.
func (r *SyscallRule) names() []string {
	if r.Name == "" {
		return r.Names
	}
	return append([]string{r.Name}, r.Names...)
}

// ParseProfile decodes a profile document. Unknown keys are errors, so a
// misspelt "defaultAction" cannot silently turn into an empty profile.
func ParseProfile(data []byte, source string) (*Profile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("seccomp profile %s: %w", source, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("seccomp profile %s: extra data after the JSON object", source)
	}
	if p.DefaultAction == "" {
		return nil, fmt.Errorf("seccomp profile %s: defaultAction is missing", source)
	}
	p.Source = source
	return &p, nil
}

// LoadProfile reads and decodes the profile file name.
func LoadProfile(name string) (*Profile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("seccomp profile: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxProfileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("seccomp profile %s: %w", name, err)
	}
	if len(data) > maxProfileBytes {
		return nil, fmt.Errorf("seccomp profile %s: larger than %d bytes", name, maxProfileBytes)
	}
	return ParseProfile(data, name)
}

// DefaultProfile returns authbench's default profile (profiles/default.json).
func DefaultProfile() *Profile {
	p, err := ParseProfile(defaultProfileJSON, "default")
	if err != nil {
		panic(err) // the embedded file is checked by the tests
	}
	return p
}

// DefaultProfileJSON returns the default profile file as shipped.
func DefaultProfileJSON() []byte { return bytes.Clone(defaultProfileJSON) }
