package policy

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Access is a set of Landlock filesystem access rights. Each bit has the
// value of the kernel's LANDLOCK_ACCESS_FS_* flag of the same name, so a
// plan converts to a ruleset without a translation table.
type Access uint64

// The Landlock filesystem access rights, in kernel bit order.
const (
	AccessExecute     Access = 1 << iota // execute a file (ABI 1)
	AccessWriteFile                      // open a file for writing (ABI 1)
	AccessReadFile                       // open a file for reading (ABI 1)
	AccessReadDir                        // list a directory (ABI 1)
	AccessRemoveDir                      // remove an empty directory or rename one away (ABI 1)
	AccessRemoveFile                     // unlink or rename away a file (ABI 1)
	AccessMakeChar                       // create a character device (ABI 1)
	AccessMakeDir                        // create a directory (ABI 1)
	AccessMakeReg                        // create a regular file (ABI 1)
	AccessMakeSock                       // create a unix socket (ABI 1)
	AccessMakeFifo                       // create a named pipe (ABI 1)
	AccessMakeBlock                      // create a block device (ABI 1)
	AccessMakeSym                        // create a symbolic link (ABI 1)
	AccessRefer                          // link or rename a file from or to another directory (ABI 2)
	AccessTruncate                       // truncate a file (ABI 3)
	AccessIoctlDev                       // ioctl on a device file (ABI 5)
	AccessResolveUnix                    // connect to a pathname unix socket served from outside (ABI 9)
)

// accessNames are the right names, indexed by bit, as go-landlock and the
// kernel documentation spell them (lower case, without the prefix).
var accessNames = [...]string{
	"execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file",
	"make_char", "make_dir", "make_reg", "make_sock", "make_fifo", "make_block",
	"make_sym", "refer", "truncate", "ioctl_dev", "resolve_unix",
}

// AccessAll is every right authbench knows.
const AccessAll Access = 1<<len(accessNames) - 1

// Right groups the plan compiler hands out. They are data so that the
// tests, the docs and the compiler agree on them.
const (
	// AccessFileOnly are the rights the kernel accepts on a rule for a
	// file (not a directory).
	AccessFileOnly = AccessExecute | AccessWriteFile | AccessReadFile | AccessTruncate |
		AccessIoctlDev | AccessResolveUnix

	// accessReadFile and accessReadDir are what a read pattern grants.
	accessReadFile = AccessReadFile
	accessReadDir  = AccessReadFile | AccessReadDir

	// accessExec is what an execute pattern grants: a program must be
	// readable to be run (the loader maps it).
	accessExec = AccessExecute | AccessReadFile

	// accessWriteFile is what a write pattern grants on an existing file
	// (a unix socket is written by connecting to it).
	accessWriteFile = AccessWriteFile | AccessTruncate | AccessResolveUnix

	// accessWriteDir is what a write pattern grants on a directory: write,
	// create, remove and move entries below it. Character and block
	// devices are deliberately left out: a process that may create one in
	// a writable directory could open the raw disk or memory through it.
	accessWriteDir = AccessWriteFile | AccessTruncate | AccessMakeReg | AccessMakeDir |
		AccessMakeSym | AccessMakeFifo | AccessMakeSock | AccessRemoveFile |
		AccessRemoveDir | AccessRefer | AccessResolveUnix

	// accessCreate is what a write target that does not exist yet grants
	// on its nearest existing ancestor directory: create the file (and
	// any missing directories on the way), then write it.
	accessCreate = AccessMakeReg | AccessMakeDir | AccessWriteFile | AccessTruncate
)

// Has reports whether every right of want is in a.
func (a Access) Has(want Access) bool { return a&want == want }

// String lists the rights as "read_file,read_dir", or "none".
func (a Access) String() string {
	names := a.Names()
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}

// Names lists the rights in kernel bit order; unknown bits appear as
// "1<<N".
func (a Access) Names() []string {
	var out []string
	for i := 0; i < 64; i++ {
		if a&(1<<i) == 0 {
			continue
		}
		if i < len(accessNames) {
			out = append(out, accessNames[i])
		} else {
			out = append(out, fmt.Sprintf("1<<%d", i))
		}
	}
	return out
}

// ParseAccess parses a right name such as "read_file".
func ParseAccess(name string) (Access, error) {
	for i, n := range accessNames {
		if n == name {
			return 1 << i, nil
		}
	}
	return 0, fmt.Errorf("unknown Landlock access right %q", name)
}

// MarshalJSON writes the rights as a list of names.
func (a Access) MarshalJSON() ([]byte, error) {
	names := a.Names()
	if names == nil {
		names = []string{}
	}
	return json.Marshal(names)
}

// UnmarshalJSON reads a list of right names.
func (a *Access) UnmarshalJSON(data []byte) error {
	var names []string
	if err := json.Unmarshal(data, &names); err != nil {
		return fmt.Errorf("access rights: %w", err)
	}
	var out Access
	for _, n := range names {
		r, err := ParseAccess(n)
		if err != nil {
			return err
		}
		out |= r
	}
	*a = out
	return nil
}
