package runbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

const testPasswd = `root:x:0:0:root:/root:/bin/bash
# a comment
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
broken line
agent:x:1001:1002:Agent:/home/agent:/bin/bash
nohome:x:1003:1003:::/bin/sh
`

const testGroup = `root:x:0:
staff:x:50:agent
agents:x:1002:
devs:x:60:bob,agent,carol
others:x:70:agentx,nohome
`

func TestResolveUser(t *testing.T) {
	tests := []struct {
		spec          string
		uid, gid      int
		groups        []int  // nil: just gid
		home, unknown string // unknown: the name an UnknownUserError names
		bad           bool
	}{
		{spec: "root", uid: 0, gid: 0, home: "/root"},
		{spec: "0", uid: 0, gid: 0, home: "/root"},
		{spec: "agent", uid: 1001, gid: 1002, groups: []int{1002, 50, 60}, home: "/home/agent"},
		{spec: "1001", uid: 1001, gid: 1002, groups: []int{1002, 50, 60}, home: "/home/agent"},
		{spec: "agent:staff", uid: 1001, gid: 50, groups: []int{50, 60}, home: "/home/agent"},
		{spec: "agent:7", uid: 1001, gid: 7, groups: []int{7, 50, 60}, home: "/home/agent"},
		{spec: "1001:50", uid: 1001, gid: 50, groups: []int{50, 60}, home: "/home/agent"},
		{spec: "4242", uid: 4242, gid: 0, home: "/"}, // a uid without an entry: gid 0, as runc does
		{spec: "4242:4242", uid: 4242, gid: 4242, home: "/"},
		{spec: "nohome", uid: 1003, gid: 1003, groups: []int{1003, 70}, home: "/"},
		{spec: "ghost", unknown: "ghost"},
		{spec: "agent:ghosts", unknown: "ghosts"},
		{spec: "", bad: true},
		{spec: "agent:", bad: true},
		{spec: ":staff", bad: true},
		{spec: "-1", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			id, err := resolveUser(tt.spec, []byte(testPasswd), []byte(testGroup))
			var ue *UnknownUserError
			switch {
			case tt.unknown != "":
				if !errors.As(err, &ue) || ue.Name != tt.unknown {
					t.Fatalf("want an unknown-user error naming %q, got %v", tt.unknown, err)
				}
			case tt.bad:
				if err == nil {
					t.Fatalf("accepted: %+v", id)
				}
			case err != nil:
				t.Fatal(err)
			case id.UID != tt.uid || id.GID != tt.gid || id.Home != tt.home || id.User != tt.spec:
				t.Fatalf("got %+v, want uid %d gid %d home %s", id, tt.uid, tt.gid, tt.home)
			}
			want := tt.groups
			if want == nil {
				want = []int{tt.gid}
			}
			if err == nil && !slices.Equal(id.Groups, want) {
				t.Fatalf("groups %v, want %v", id.Groups, want)
			}
		})
	}
}

// TestAgentUserConvention: [agent] user wins, then the image's USER, then
// root; names resolve through the rootfs's own /etc/passwd, and an
// unknown one names the task and the user.
func TestAgentUserConvention(t *testing.T) {
	rootfs := t.TempDir()
	if err := os.MkdirAll(filepath.Join(rootfs, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"passwd": testPasswd, "group": testGroup} {
		if err := os.WriteFile(filepath.Join(rootfs, "etc", name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	task := func(user string) *tasks.Task {
		t := &tasks.Task{Name: "demo"}
		t.Config.Agent.User = user
		return t
	}
	image := func(user string) *imagemeta.TaskImage {
		return &imagemeta.TaskImage{Config: imagemeta.ImageConfig{User: user}}
	}
	tests := []struct {
		task, image string
		uid, gid    int
	}{
		{"", "", 0, 0},
		{"", "agent", 1001, 1002},
		{"root", "agent", 0, 0},
		{"agent:staff", "", 1001, 50},
	}
	for _, tt := range tests {
		id, err := ResolveAgent(task(tt.task), image(tt.image), rootfs)
		if err != nil || id.UID != tt.uid || id.GID != tt.gid {
			t.Errorf("task user %q, image USER %q: got %+v, %v; want %d:%d", tt.task, tt.image, id, err, tt.uid, tt.gid)
		}
	}
	_, err := ResolveAgent(task(""), image("builder"), rootfs)
	var ue *UnknownUserError
	if !errors.As(err, &ue) || err.Error() != `task demo: agent user "builder": user "builder" is not in the image's /etc/passwd` {
		t.Errorf("unknown image USER: %v", err)
	}
}

// TestPasswdSymlinkStaysInRootfs: an /etc/passwd symlinked out of the
// rootfs is not followed to the host's.
func TestPasswdSymlinkStaysInRootfs(t *testing.T) {
	rootfs := t.TempDir()
	if err := os.MkdirAll(filepath.Join(rootfs, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(outside, []byte("evil:x:0:0::/:/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(rootfs, "etc", "passwd")); err != nil {
		t.Fatal(err)
	}
	task := &tasks.Task{Name: "demo"}
	id, err := ResolveAgent(task, &imagemeta.TaskImage{Config: imagemeta.ImageConfig{User: "evil"}}, rootfs)
	if err == nil {
		t.Fatalf("resolved through a symlink out of the rootfs: %+v", id)
	}
}

// TestConfinedRootAgentHoldsNoCapabilities: an agent running as root
// under a plan keeps no capability (sandbox-init drops them all and locks
// the securebits); unconstrained it is the image's root, as in Harbor.
func TestConfinedRootAgentHoldsNoCapabilities(t *testing.T) {
	task := &tasks.Task{Name: "demo"}
	b := &Box{Options: Options{Task: task}, Image: &imagemeta.TaskImage{}, Ident: runapi.Identity{User: "root", Home: "/root"}, Plan: &policy.Plan{}}
	spec, err := b.AgentLaunch([]string{"/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	if *spec.UID != 0 || *spec.GID != 0 || !spec.DropCapabilities || len(spec.Capabilities) != 0 || !spec.NoNewPrivs {
		t.Fatalf("confined root agent: uid %d drop %v caps %v nnp %v", *spec.UID, spec.DropCapabilities, spec.Capabilities, spec.NoNewPrivs)
	}
	if got := spec.Env; len(got) == 0 || got[len(got)-1] != "HOME=/root" {
		t.Fatalf("HOME is not the user's home: %v", got)
	}
}
