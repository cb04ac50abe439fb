package sandbox

import (
	"os"
	"strings"
	"testing"
)

// TestSupplementaryGroups: the command runs with exactly the groups of
// its spec, so a group-readable file is readable by a member only.
func TestSupplementaryGroups(t *testing.T) {
	requireRoot(t, "drops to another uid with groups")
	dir := fixtureDir(t)
	secret := dir + "/group-only"
	if err := os.WriteFile(secret, []byte("for the group\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(secret, 0, 4343); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/prog", []byte("#!/bin/sh\ngrep '^Groups:' /proc/self/status\ncat "+secret+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	user := 54321
	for _, tc := range []struct {
		groups     []int
		wantGroups string
		canRead    bool
	}{
		{nil, "Groups:", false},
		{[]int{user, 4343}, "Groups:\t4343 54321", true},
		{[]int{user, 4444}, "Groups:\t4444 54321", false},
	} {
		spec := Launch{Path: dir + "/prog", Args: []string{"prog"}, Dir: dir, UID: &user, GID: &user, Groups: tc.groups}
		res := runChild(t, spec, nil)
		if res.err != nil {
			t.Fatalf("groups %v: %v", tc.groups, res.err)
		}
		lines := strings.SplitN(res.stdout, "\n", 2)
		if got := strings.TrimSpace(lines[0]); got != tc.wantGroups {
			t.Errorf("groups %v: status says %q, want %q", tc.groups, got, tc.wantGroups)
		}
		if read := strings.Contains(res.stdout, "for the group"); read != tc.canRead {
			t.Errorf("groups %v: read the group's file = %v, want %v (stderr %q)", tc.groups, read, tc.canRead, res.stderr)
		}
	}
}

// TestGroupsNeedIdentity: groups without a uid and gid are refused.
func TestGroupsNeedIdentity(t *testing.T) {
	res := runChild(t, Launch{Path: "/bin/true", Args: []string{"true"}, Groups: []int{5}}, nil)
	wantInitError(t, res, StageSpec, 0, ExitNotConfined)
}
