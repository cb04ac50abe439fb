// Package bpf holds the eBPF programs of the authbench tracer (tracer.c and
// its headers) and of the egress proxy (connpid.c: who connected each
// socket of a run's network namespace), and the Go loaders bpf2go
// generated from them, for amd64 (*_x86_bpfel), arm64 (*_arm64_bpfel),
// riscv64 (*_riscv_bpfel) and s390x (*_s390_bpfeb, big-endian); the
// last two are built, not run, on our machines. The compiled
// objects and the loaders are committed, so `go build` needs no clang;
// `make generate` (go generate ./bpf/...) rebuilds them with clang from
// include/vmlinux.h (bpftool btf dump file /sys/kernel/btf/vmlinux format c).
//
// The tracer package loads the tracer's collection with LoadTracer, sizes
// the maps and attaches the programs; the netproxy package loads the
// proxy's with LoadConnpid and attaches it at the cgroup v2 root.
package bpf

//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -target amd64,arm64,riscv64,s390x -go-package bpf -output-stem connpid Connpid connpid.c -- -O2 -g -Wall -Werror
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -target amd64,arm64,riscv64,s390x -go-package bpf -output-stem tracer -type ab_event -type ab_sync_args Tracer tracer.c -- -O2 -g -Wall -Werror
