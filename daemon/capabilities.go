package daemon

import "github.com/authbench/authbench/capability"

// checkCapabilities: capabilities are kept only by a tree running as uid
// 0, which only a root caller can ask for; names must be known.
func (p *execPrepared) checkCapabilities(peer Peer) error {
	caps := p.req.Exec.Capabilities
	switch {
	case len(caps) == 0:
		return nil
	case peer.UID != 0:
		return badField("exec.capabilities", "only a root caller may ask for capabilities")
	case p.uid != 0:
		return badField("exec.capabilities", "only a tree running as uid 0 keeps capabilities (uid is %d)", p.uid)
	}
	if _, err := capability.Numbers(caps); err != nil {
		return badField("exec.capabilities", "%v", err)
	}
	return nil
}
