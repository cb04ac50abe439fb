// Package permreq is run-time permission requests: what a refused agent
// asks for (Request: an axis, an absolute path, a reason), how a decider
// answers (Decider: spec, deny, allow; model:MODEL made by the run and
// guarded against sensitive requests), the plan rules a grant adds
// (Grant), what a decider could ever grant (Ceiling), and the bounded
// Desk that records each answer as a runapi.PermissionRequest. It judges
// with the policy package's matcher and plan only, and touches no
// kernel: the host-side run applies a grant (docs/security.md,
// "Permission requests").
package permreq
