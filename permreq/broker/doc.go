// Package broker is the channel through which a command agent or an
// installed harness asks for a permission from inside its container: the
// in-container program request-permission (Main; the authbench binary
// run under that name, a symlink at ProgramPath on the agent's PATH) and
// the host side's server of a run (Server) on a unix SOCK_SEQPACKET
// socket bound into the container at SocketPath.
//
// The agent tree may reach the socket, so everything it sends is hostile:
// a request is one datagram of at most MaxMessageBytes (a longer one is
// refused unread), decoded strictly, with no descriptors or exactly its
// three standard ones; the peer is checked (Server.Peer) from a pidfd
// the kernel gives; the server takes one connection at a time, each
// within IOTimeout, so a flood costs the agent its own requests and
// nothing else (the run's permreq.Desk caps how many reach a decider).
// A grant never widens a running process: when the request names a
// command (`request-permission ACCESS PATH REASON -- CMD ARGS`) the host
// starts it anew under π and the grants so far, with the caller's
// standard descriptors, and sends its exit status back
// (docs/security.md, "Permission requests").
package broker
