package sandbox

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
)

func TestLandlockABITableGrows(t *testing.T) {
	for i, abi := range landlockABIs {
		if abi.version != i+1 {
			t.Fatalf("entry %d has version %d", i, abi.version)
		}
		if i > 0 {
			prev := landlockABIs[i-1]
			if !abi.fs.Has(prev.fs) || abi.scopes&prev.scopes != prev.scopes {
				t.Errorf("ABI %d loses rights of ABI %d", abi.version, prev.version)
			}
		}
		if abi.fs&^policy.AccessAll != 0 {
			t.Errorf("ABI %d has unknown rights %v", abi.version, abi.fs)
		}
	}
	if last := landlockABIs[len(landlockABIs)-1]; last.fs != policy.AccessAll {
		t.Errorf("the newest ABI does not handle every right authbench knows: %v", policy.AccessAll&^last.fs)
	}
}

func TestEnforcementFor(t *testing.T) {
	tests := []struct {
		kernel     int
		abi        int
		unenforced string
		scopes     []string
		noteHas    string
	}{
		{0, 0, policy.AccessAll.String(), []string{}, "no Landlock"},
		{1, 1, "refer,truncate,ioctl_dev,resolve_unix", []string{}, "always refused"},
		{2, 2, "truncate,ioctl_dev,resolve_unix", []string{}, ""},
		{3, 3, "ioctl_dev,resolve_unix", []string{}, ""},
		{5, 5, "resolve_unix", []string{}, ""},
		{6, 6, "resolve_unix", []string{"abstract_unix_socket", "signal"}, ""},
		{7, 7, "resolve_unix", []string{"abstract_unix_socket", "signal"}, ""},
		{9, 9, "none", []string{"abstract_unix_socket", "signal"}, ""},
		{12, 9, "none", []string{"abstract_unix_socket", "signal"}, "newer than authbench knows"},
	}
	for _, tc := range tests {
		e := EnforcementFor(tc.kernel)
		if e.ABI != tc.abi || e.Unenforced.String() != tc.unenforced || !reflect.DeepEqual(e.Scopes, tc.scopes) {
			t.Errorf("kernel ABI %d: abi %d unenforced %s scopes %v", tc.kernel, e.ABI, e.Unenforced, e.Scopes)
		}
		if e.Handled|e.Unenforced != policy.AccessAll || e.Handled&e.Unenforced != 0 {
			t.Errorf("kernel ABI %d: handled %v and unenforced %v do not partition the rights", tc.kernel, e.Handled, e.Unenforced)
		}
		if tc.noteHas != "" && !strings.Contains(strings.Join(e.Notes, " "), tc.noteHas) {
			t.Errorf("kernel ABI %d: notes %q lack %q", tc.kernel, e.Notes, tc.noteHas)
		}
		if tc.kernel < 6 && tc.kernel > 0 && len(e.UnenforcedScopes) != 2 {
			t.Errorf("kernel ABI %d: unenforced scopes %v", tc.kernel, e.UnenforcedScopes)
		}
	}
}

func TestDowngradeRules(t *testing.T) {
	rules := []policy.Rule{
		{Path: "/d", Dir: true, Access: policy.AccessReadFile | policy.AccessRefer | policy.AccessMakeReg},
		{Path: "/f", Access: policy.AccessWriteFile | policy.AccessTruncate},
		{Path: "/t", Access: policy.AccessTruncate},
		{Path: "/x", Access: policy.AccessMakeReg}, // a directory right on a file: dropped
	}
	got := downgradeRules(rules, landlockABIs[0].fs) // ABI 1
	want := []ruleAccess{
		{"/d", policy.AccessReadFile | policy.AccessMakeReg},
		{"/f", policy.AccessWriteFile},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ABI 1: got %+v, want %+v", got, want)
	}
	got = downgradeRules(rules, landlockABIs[6].fs) // ABI 7
	if len(got) != 3 || got[0].access != rules[0].Access || got[2].access != policy.AccessTruncate {
		t.Errorf("ABI 7: got %+v", got)
	}
}

func TestLandlockStep(t *testing.T) {
	pl := &policy.Plan{}
	tests := []struct {
		plan      *policy.Plan
		abi       int
		allow     bool
		wantApply bool
		wantErr   bool
	}{
		{nil, 0, false, false, false},
		{nil, 7, false, false, false},
		{pl, 7, false, true, false},
		{pl, 1, false, true, false},
		{pl, 0, false, false, true}, // never silently unconfined
		{pl, 0, true, false, false},
	}
	for _, tc := range tests {
		apply, err := landlockStep(tc.plan, tc.abi, tc.allow)
		if apply != tc.wantApply || (err != nil) != tc.wantErr {
			t.Errorf("plan %v abi %d allow %v: apply %v err %v", tc.plan != nil, tc.abi, tc.allow, apply, err)
		}
		if err != nil && !errors.Is(err, ErrNoLandlock) {
			t.Errorf("error %v does not wrap ErrNoLandlock", err)
		}
	}
}

// TestEffectiveABIErrata: the ABI authbench relies on follows the errata
// table: an ABI-6+ kernel without erratum 2's fix is used as ABI 5 (so no
// scope is requested, and the record lists both scopes as unenforced);
// the other errata only add notes; kernels below an erratum's ABI are
// not affected by it.
func TestEffectiveABIErrata(t *testing.T) {
	const all = 1<<0 | 1<<1 | 1<<2
	tests := []struct {
		kernel, errata int
		abi            int
		notes          []int // unfixed errata named
	}{
		{0, 0, 0, nil},
		{1, 0, 1, []int{3}},
		{1, all, 1, nil},
		{3, 1 << 2, 3, nil},
		{4, 1 << 2, 4, []int{1}},
		{5, 1<<0 | 1<<2, 5, nil},
		{6, 0, 5, []int{1, 2, 3}},
		{6, 1<<0 | 1<<2, 5, []int{2}},
		{6, all, 6, nil},
		{7, 1 << 1, 7, []int{1, 3}},
		{7, 1<<0 | 1<<2, 5, []int{2}},
		{9, all, 9, nil},
		{12, 1<<0 | 1<<2, 5, []int{2}},
		{12, all | 1<<7, 12, nil}, // an erratum authbench does not know yet
	}
	for _, tc := range tests {
		abi, notes := effectiveABI(tc.kernel, tc.errata)
		var named []int
		for _, n := range notes {
			for _, e := range landlockErrata {
				if n == e.note {
					named = append(named, e.number)
				}
			}
		}
		slices.Sort(named)
		if abi != tc.abi || !slices.Equal(named, tc.notes) {
			t.Errorf("kernel %d errata %#b: abi %d errata noted %v, want %d %v", tc.kernel, tc.errata, abi, named, tc.abi, tc.notes)
		}
		e := EnforcementForKernel(tc.kernel, tc.errata)
		if e.KernelABI != tc.kernel || e.ABI != min(tc.abi, len(landlockABIs)) {
			t.Errorf("kernel %d errata %#b: record kernel_abi %d abi %d", tc.kernel, tc.errata, e.KernelABI, e.ABI)
		}
		if tc.kernel >= 6 && tc.errata&(1<<1) == 0 && (len(e.Scopes) != 0 || len(e.UnenforcedScopes) != 2) {
			t.Errorf("kernel %d without erratum 2's fix: record claims scopes %v (unenforced %v)", tc.kernel, e.Scopes, e.UnenforcedScopes)
		}
	}
	for i, e := range landlockErrata {
		if e.number != i+1 || e.abi < 1 || e.abi > len(landlockABIs) || (e.useAtMost != 0 && e.useAtMost >= e.abi) {
			t.Errorf("erratum entry %d: %+v", i, e)
		}
	}
}

// TestKernelEnforcementRecord: on this kernel, the record's versions
// are the kernel's and the one the sandbox relies on.
func TestKernelEnforcementRecord(t *testing.T) {
	abi := requireLandlock(t, 1)
	v, errata := kernelLandlock()
	e := KernelEnforcement()
	t.Logf("kernel Landlock ABI %d, errata %#b: relied on as ABI %d, scopes %v, notes %q", v, errata, abi, e.Scopes, e.Notes)
	if e.ABI != min(abi, len(landlockABIs)) || e.KernelABI != v || abi > v {
		t.Errorf("record abi %d kernel_abi %d; KernelLandlockABI %d, kernel %d", e.ABI, e.KernelABI, abi, v)
	}
}
