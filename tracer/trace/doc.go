// Package trace holds the data of a file-access trace: the Event the
// tracer decodes from the kernel (operation, axis, paths, result, process
// identity), its JSON line encoding (docs/trace-events.md), the JSONL
// Writer with its summary line, and the detector of programs run through
// the dynamic loader. It touches no kernel interface: the eBPF side is
// package tracer, which produces these events; readers of traces (audit,
// oracle, the run API, reports) import only this package.
package trace
