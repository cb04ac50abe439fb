package env

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/authbench/authbench/env/imagemeta"
)

// Registry is a registry images may be pulled from: Host is "host[:port]";
// Plain means plain HTTP without TLS (a registry served on loopback).
type Registry struct {
	Host  string
	Plain bool
}

// ParseRegistry reads a registry as the config file and the flags give
// it: "host:port" (TLS) or "http://host:port" (plain HTTP).
func ParseRegistry(s string) (Registry, error) {
	s = strings.TrimSpace(s)
	r := Registry{Host: s}
	switch {
	case strings.HasPrefix(s, "http://"):
		r = Registry{Host: strings.TrimPrefix(s, "http://"), Plain: true}
	case strings.HasPrefix(s, "https://"):
		r.Host = strings.TrimPrefix(s, "https://")
	}
	r.Host = strings.TrimRight(r.Host, "/")
	if r.Host == "" || strings.ContainsAny(r.Host, "/ \t@") {
		return Registry{}, fmt.Errorf("registry %q: want HOST[:PORT] or http://HOST[:PORT]", s)
	}
	return r, nil
}

// PullRef is the reference ref has in registry reg: a Docker Hub name
// keeps its path ("python:3.12-slim" → "REG/library/python:3.12-slim",
// "user/app:1" → "REG/user/app:1"); a reference that names reg itself
// stays as it is; one that names another registry has none in reg ("").
// Pure.
func PullRef(reg Registry, ref string) string {
	first, rest, hasSlash := strings.Cut(ref, "/")
	if hasSlash && (strings.ContainsAny(first, ".:") || first == "localhost") {
		if first == reg.Host {
			return ref
		}
		if first != "docker.io" && first != "index.docker.io" && first != "registry-1.docker.io" {
			return ""
		}
		ref = rest
	}
	ref = normalizeRef(ref)
	if !strings.Contains(ref, "/") {
		ref = "library/" + ref
	}
	return reg.Host + "/" + ref
}

// PullArgv pulls ref (buildah and podman; docker pulls with the same
// verb) without TLS when plain, asking the registry even when an image of
// that name is in storage (docker always does).
func (b Builder) PullArgv(ref string, plain bool) []string {
	if b.Kind == imagemeta.Docker {
		return b.cmd("pull", "--quiet", ref)
	}
	args := []string{"pull", "--quiet", "--policy=always"}
	if plain {
		args = append(args, "--tls-verify=false")
	}
	return b.cmd(append(args, ref)...)
}

// DigestArgv prints the manifest digest of the image ref in storage, as
// the registry it was pulled from serves it.
func (b Builder) DigestArgv(ref string) []string {
	if b.Kind == imagemeta.Buildah {
		return b.cmd("inspect", "--type", "image", "--format", "{{.FromImageDigest}}", ref)
	}
	return b.cmd("image", "inspect", "--format", "{{index .RepoDigests 0}}", ref)
}

// ErrNotInRegistries is returned by a Puller when no configured registry
// has the image.
var ErrNotInRegistries = errors.New("no configured registry has the image")

// Puller pulls images from the configured registries into the builder's
// storage, in order, the first that has the image winning.
type Puller struct {
	Builder    Builder
	Registries []Registry
	// Log receives the builder's output (may be nil).
	Log io.Writer
}

// Pull pulls ref from the first configured registry that has it, on
// every call (a tag the registry moved since the last pull is noticed:
// the image and digest returned are what the registry serves now), and
// returns the exact reference of the pulled image in storage
// ("REG/REPO@DIGEST": a later pull of the same tag cannot change what it
// names), its digest and the registry.
func (p Puller) Pull(ctx context.Context, ref string) (image, digest, registry string, err error) {
	var errs []error
	for _, reg := range p.Registries {
		full := PullRef(reg, ref)
		if full == "" {
			continue
		}
		before, _ := runTool(ctx, nil, nil, p.Builder.DigestArgv(full)...) // "" when not in storage
		if _, err := runTool(ctx, p.Log, nil, p.Builder.PullArgv(full, reg.Plain)...); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", full, err))
			continue
		}
		out, err := runTool(ctx, nil, nil, p.Builder.DigestArgv(full)...)
		if err != nil {
			return "", "", "", fmt.Errorf("digest of %s: %w", full, err)
		}
		digest = strings.TrimSpace(out)
		if i := strings.LastIndexByte(digest, '@'); i >= 0 { // docker's repo@digest
			digest = digest[i+1:]
		}
		if !strings.HasPrefix(digest, "sha256:") {
			return "", "", "", fmt.Errorf("digest of %s: %q is not a digest", full, digest)
		}
		if before = strings.TrimSpace(before); before != "" && !strings.HasSuffix(before, digest) && p.Log != nil {
			fmt.Fprintf(p.Log, "%s: the registry moved the tag: now %s (storage had %s); the build uses the new image\n", full, digest, before)
		}
		return repoOf(full) + "@" + digest, digest, reg.Host, nil
	}
	return "", "", "", errors.Join(append([]error{ErrNotInRegistries}, errs...)...)
}
