package daemon

import (
	"strings"

	"github.com/authbench/authbench/runapi"
)

// mayView reports whether peer may see, follow and cancel run r: root
// may for every run, others for their own runs only.
func mayView(peer Peer, r *runapi.Run) bool {
	return peer.UID == 0 || r.CallerUID == peer.UID
}

// redactEnv replaces every value of env ("KEY=VALUE") by "<redacted>".
func redactEnv(env []string) []string {
	if env == nil {
		return nil
	}
	out := make([]string, len(env))
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		out[i] = k + "=<redacted>"
	}
	return out
}

// viewFor returns r as peer may see it: the request's environment values
// only for its caller and root.
func viewFor(peer Peer, r *runapi.Run) *runapi.Run {
	if peer.UID == 0 || r.CallerUID == peer.UID {
		return r
	}
	c := *r
	if ex := r.Request.Exec; ex != nil {
		redacted := *ex
		redacted.Env = redactEnv(ex.Env)
		c.Request.Exec = &redacted
	}
	return &c
}

// GetFor returns run id if peer may see it; another caller's run is
// ErrNotFound, as a missing one.
func (m *Manager) GetFor(peer Peer, id string) (*runapi.Run, error) {
	r, err := m.Get(id)
	if err != nil {
		return nil, err
	}
	if !mayView(peer, r) {
		return nil, ErrNotFound
	}
	return viewFor(peer, r), nil
}

// ListFor returns the runs peer may see, oldest first.
func (m *Manager) ListFor(peer Peer) ([]*runapi.Run, error) {
	runs, err := m.List()
	out := make([]*runapi.Run, 0, len(runs))
	for _, r := range runs {
		if mayView(peer, r) {
			out = append(out, viewFor(peer, r))
		}
	}
	return out, err
}

// CancelFor cancels run id if peer may see it (else ErrNotFound).
func (m *Manager) CancelFor(peer Peer, id string) (*runapi.Run, error) {
	if _, err := m.GetFor(peer, id); err != nil {
		return nil, err
	}
	r, err := m.Cancel(id)
	if err != nil {
		return nil, err
	}
	return viewFor(peer, r), nil
}
