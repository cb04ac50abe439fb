// Package bpf holds the eBPF programs of the authbench tracer (tracer.c and
// its headers) and the Go loaders bpf2go generated from them, for amd64
// (tracer_x86_bpfel), arm64 (tracer_arm64_bpfel), riscv64
// (tracer_riscv_bpfel) and s390x (tracer_s390_bpfeb, big-endian); the
// last two are built, not run, on our machines. The compiled
// objects and the loaders are committed, so `go build` needs no clang;
// `make generate` (go generate ./bpf/...) rebuilds them with clang from
// include/vmlinux.h (bpftool btf dump file /sys/kernel/btf/vmlinux format c).
//
// The tracer package is the only user: it loads the collection with
// LoadTracer, sizes the maps and attaches the programs.
package bpf

//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -target amd64,arm64,riscv64,s390x -go-package bpf -output-stem tracer -type ab_event -type ab_sync_args Tracer tracer.c -- -O2 -g -Wall -Werror
