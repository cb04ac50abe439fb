package sandbox

import (
	"io/fs"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/authbench/authbench/policy"
)

type fakeInfo struct{ dir bool }

func (f fakeInfo) Name() string       { return "x" }
func (f fakeInfo) Size() int64        { return 0 }
func (f fakeInfo) Mode() fs.FileMode  { return map[bool]fs.FileMode{true: fs.ModeDir}[f.dir] }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return f.dir }
func (f fakeInfo) Sys() any           { return nil }

// TestPlaceRuntimeRules: run-time rules are settled inside the container:
// a missing path is dropped, a file keeps file rights only (downgrade),
// a directory a hierarchy; rules compiled against the rootfs pass as they
// are, even when missing (their open must fail loudly).
func TestPlaceRuntimeRules(t *testing.T) {
	files := map[string]bool{"/sys/devices/system/cpu/online": false, "/sys/fs/cgroup": true}
	stat := func(p string) (os.FileInfo, error) {
		dir, ok := files[p]
		if !ok {
			return nil, os.ErrNotExist
		}
		return fakeInfo{dir}, nil
	}
	read := policy.AccessReadFile | policy.AccessReadDir
	in := []policy.Rule{
		{Path: "/etc", Dir: true, Access: read},
		{Path: "/gone", Access: policy.AccessReadFile},
		{Path: "/sys/devices/system/cpu/online", Dir: true, Access: read, Runtime: true},
		{Path: "/sys/fs/cgroup", Access: policy.AccessReadFile, Runtime: true},
		{Path: "/sys/missing", Dir: true, Access: read, Runtime: true},
	}
	got := downgradeRules(placeRuntimeRules(in, stat), policy.AccessAll)
	want := []ruleAccess{
		{"/etc", read},
		{"/gone", policy.AccessReadFile},
		{"/sys/devices/system/cpu/online", policy.AccessReadFile},
		{"/sys/fs/cgroup", policy.AccessReadFile},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rules %+v, want %+v", got, want)
	}
}
