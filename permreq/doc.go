// Package permreq is run-time permission requests: what a refused agent
// asks for (Request: an axis, an absolute path, a reason), how a decider
// answers (Decider: spec, deny, allow), the plan rules a grant adds
// (Grant), and the record of each request (Record). It judges with the
// policy package's matcher and plan only, and touches no kernel: the
// host-side run applies a grant (docs/security.md, "Permission
// requests").
package permreq
