package daemon

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/capability"
	"github.com/authbench/authbench/runapi"
)

// TestTaskCaps: a task run's capability set is checked before anything
// runs: names must be known, and a caller that is not root may name
// Docker's default capabilities only; an empty one leaves the task's.
func TestTaskCaps(t *testing.T) {
	member, root := Peer{UID: 1000, GID: 1000}, Peer{}
	for _, c := range []struct {
		caps string
		peer Peer
		want []string // nil with ok: the task's
		ok   bool
	}{
		{"", member, nil, true},
		{"none", member, []string{}, true},
		{"docker", member, capability.Docker, true},
		{"chown,fowner", member, []string{"CAP_CHOWN", "CAP_FOWNER"}, true},
		{"SYS_ADMIN", member, nil, false},
		{"SYS_ADMIN", root, []string{"CAP_SYS_ADMIN"}, true},
		{"chown,fly", root, nil, false},
		{",", root, nil, false},
	} {
		p := &taskPrepared{recorded: recorded{&runapi.RunRequest{Task: &runapi.TaskRequest{Caps: c.caps}}}}
		err := p.takeTaskCaps(c.peer)
		var re *RequestError
		switch {
		case c.ok && err != nil:
			t.Errorf("%q as uid %d: %v", c.caps, c.peer.UID, err)
		case !c.ok && (!errors.As(err, &re) || re.Field != "task.caps"):
			t.Errorf("%q as uid %d: %v, want a bad task.caps", c.caps, c.peer.UID, err)
		case c.ok && (c.want == nil) != (p.caps == nil), c.ok && !slices.Equal(p.caps, c.want):
			t.Errorf("%q as uid %d: caps %v, want %v", c.caps, c.peer.UID, p.caps, c.want)
		}
	}
}

// TestTaskAllowHosts: agent_allow_hosts entries are checked before
// anything runs; a URL with a path, another scheme or a bad port is
// refused naming the field and the entry.
func TestTaskAllowHosts(t *testing.T) {
	for _, c := range []struct {
		hosts []string
		bad   string // part of the error; "" for none
	}{
		{nil, ""},
		{[]string{"127.0.0.1:8080", "pypi.org", "https://api.openai.com", "*.github.com:443"}, ""},
		{[]string{"pypi.org", "https://api.openai.com/v1"}, `task.agent_allow_hosts[1] "https://api.openai.com/v1"`},
		{[]string{"ftp://x.org"}, `scheme "ftp"`},
		{[]string{"x.org:70000"}, "70000"},
	} {
		p := &taskPrepared{recorded: recorded{&runapi.RunRequest{Task: &runapi.TaskRequest{AgentAllowHosts: c.hosts}}}}
		err := p.checkAllowHosts()
		var re *RequestError
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("%q: %v", c.hosts, err)
		case c.bad != "" && (!errors.As(err, &re) || re.Field != "task.agent_allow_hosts" || !strings.Contains(err.Error(), c.bad)):
			t.Errorf("%q: %v, want a bad task.agent_allow_hosts naming %q", c.hosts, err, c.bad)
		}
	}
}
