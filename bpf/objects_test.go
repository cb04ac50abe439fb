package bpf

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goArchOfTarget is the build constraint of each bpf2go target's loader
// (its file's //go:build line), by the target's file-name infix.
var goArchOfTarget = map[string]string{
	"x86":   "386 || amd64",
	"arm64": "arm64",
	"riscv": "riscv64",
	"s390":  "s390x",
}

// TestObjectsMatchTheirByteOrder: every committed eBPF object is a BPF
// ELF file in the byte order its name says (bpfel little-endian, bpfeb
// big-endian), its loader builds for the GOARCHes of that target only, and
// both programs (tracer, connpid) exist for every target: `go build`
// for any of these GOARCHes finds an object it can load.
func TestObjectsMatchTheirByteOrder(t *testing.T) {
	objs, err := filepath.Glob("*_bpfe[lb].o")
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`^(tracer|connpid)_([a-z0-9]+)_(bpfel|bpfeb)\.o$`)
	seen := map[string]bool{}
	for _, obj := range objs {
		m := name.FindStringSubmatch(obj)
		if m == nil {
			t.Errorf("%s: not a bpf2go object name", obj)
			continue
		}
		prog, target, order := m[1], m[2], m[3]
		seen[prog+"/"+target] = true
		want := binary.ByteOrder(binary.LittleEndian)
		if order == "bpfeb" {
			want = binary.BigEndian
		}
		f, err := elf.Open(obj)
		if err != nil {
			t.Errorf("%s: %v", obj, err)
			continue
		}
		if f.Machine != elf.EM_BPF || f.ByteOrder != want {
			t.Errorf("%s: machine %v, byte order %v; want EM_BPF, %v", obj, f.Machine, f.ByteOrder, want)
		}
		f.Close()
		loader := strings.TrimSuffix(obj, ".o") + ".go"
		src, err := os.ReadFile(loader)
		if err != nil {
			t.Errorf("%s: no loader: %v", obj, err)
			continue
		}
		arch, ok := goArchOfTarget[target]
		if !ok {
			t.Errorf("%s: target %s has no GOARCH in this test", obj, target)
		} else if !strings.Contains(string(src), "//go:build "+arch+"\n") || !strings.Contains(string(src), "//go:embed "+obj+"\n") {
			t.Errorf("%s: loader does not build for %s only or does not embed %s", loader, arch, obj)
		}
	}
	for target := range goArchOfTarget {
		for _, prog := range []string{"tracer", "connpid"} {
			if !seen[prog+"/"+target] {
				t.Errorf("no %s object for target %s", prog, target)
			}
		}
	}
}
