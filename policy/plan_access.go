package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/bits"
	"strconv"
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

// MarshalJSON writes the rights as a list of names. Plans are written
// into every run record and sent to every sandbox-init, so the list is
// appended by hand rather than through encoding/json.
func (a Access) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 16*bits.OnesCount64(uint64(a))+2)
	b = append(b, '[')
	for i, n := range a.Names() {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, n) // plain ASCII: the same as JSON's quoting
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads a list of right names.
func (a *Access) UnmarshalJSON(data []byte) error {
	if out, ok, err := parseAccessList(data); ok {
		if err != nil {
			return err
		}
		*a = out
		return nil
	}
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

// parseAccessList reads the common form of a list of right names, a JSON
// array of strings without escapes, without encoding/json; ok is false
// for any other form (UnmarshalJSON then decodes it the general way).
// The decoder hands UnmarshalJSON only valid JSON. Pure.
func parseAccessList(data []byte) (out Access, ok bool, err error) {
	i := 0
	skip := func() {
		for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
			i++
		}
	}
	skip()
	if i == len(data) || data[i] != '[' {
		return 0, false, nil
	}
	i++
	skip()
	if i < len(data) && data[i] == ']' {
		i++
		skip()
		return 0, i == len(data), nil
	}
	for {
		if i == len(data) || data[i] != '"' {
			return 0, false, nil
		}
		end := bytes.IndexByte(data[i+1:], '"')
		if end < 0 {
			return 0, false, nil
		}
		name := data[i+1 : i+1+end]
		if bytes.IndexByte(name, '\\') >= 0 {
			return 0, false, nil
		}
		r, perr := ParseAccess(string(name))
		if perr != nil && err == nil {
			err = perr
		}
		out |= r
		i += end + 2
		skip()
		switch {
		case i < len(data) && data[i] == ',':
			i++
			skip()
		case i < len(data) && data[i] == ']':
			i++
			skip()
			if i != len(data) {
				return 0, false, nil
			}
			return out, true, err
		default:
			return 0, false, nil
		}
	}
}
