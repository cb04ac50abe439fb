// Package runapi is the run API of authbench: the wire types of the
// daemon's HTTP API over its unix socket (RunRequest, a tagged union of
// ExecRequest, TaskRequest, GenerateRequest and BuildRequest with the
// Common fields, read strictly by DecodeRunRequest: exact field names and
// no key twice at any depth; Run), the records a run produces
// (TaskResult, result.json; GenerationRecord, generation.json), each
// kind's artifact table (the only files a run of the kind serves), the
// API interface every caller of runs uses, and the socket Client.
//
// It is a leaf as Kubernetes' api is to its apiserver: it imports nothing
// that touches the kernel (no sandbox, bpf, tracer loader, task
// environments, task runs or daemon), so that the API's clients — bench,
// oracle, report and the CLI — compile without the Manager. Only the
// daemon (package daemon) serves runs; the CLI embeds one through its
// Local API when no daemon listens. The data of a run's trace come from
// package tracer/trace, its judgement from audit and its plan from
// policy: all three are pure.
package runapi
