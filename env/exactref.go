package env

import (
	"context"
	"fmt"
	"github.com/authbench/authbench/env/imagemeta"
	"os/exec"
	"strings"
)

// A FROM names an image in the builder's storage only by an exact
// reference: buildah (and podman) match a short name such as
// python:3.12-slim against any registry's image of that name, so once
// REG/library/python:3.12-slim was pulled, a later FROM python:3.12-slim
// with no registry configured (or a moved tag) would silently build on
// whatever was pulled then. exactLocal refuses that match.

// qualifiedRef is ref fully qualified as a registry names it:
// "python" → "docker.io/library/python:latest", "user/app:1" →
// "docker.io/user/app:1"; a reference that names its registry (a first
// component with "." or ":", or "localhost") keeps it. Pure.
func qualifiedRef(ref string) string {
	first, _, hasSlash := strings.Cut(ref, "/")
	if hasSlash && (strings.ContainsAny(first, ".:") || first == "localhost") {
		if !hasTagOrDigest(ref) {
			ref += ":latest"
		}
		if first == "index.docker.io" || first == "registry-1.docker.io" {
			return qualifiedRef(strings.TrimPrefix(ref, first+"/"))
		}
		return ref
	}
	return "docker.io/" + normalizeWithLibrary(ref)
}

// normalizeWithLibrary is normalizeRef with Docker Hub's "library/" for a
// one-component name.
func normalizeWithLibrary(ref string) string {
	ref = normalizeRef(ref)
	if !strings.Contains(ref, "/") {
		ref = "library/" + ref
	}
	return ref
}

// namesExactly reports whether one of names (an image's names in the
// builder's storage, as buildah, podman or docker print them) is the
// image ref names exactly: the same fully qualified reference, or, for a
// short name, the name an image made on this machine gets
// ("localhost/NAME:TAG"). A name of another registry
// ("127.0.0.1:5000/library/NAME:TAG", a pull) never matches a short
// name. A digest reference matches the image whose name it qualifies
// (the builder resolved the digest). Pure.
func namesExactly(ref string, names []string) bool {
	want := []string{qualifiedRef(ref)}
	if first, _, hasSlash := strings.Cut(ref, "/"); !hasSlash || !(strings.ContainsAny(first, ".:") || first == "localhost") {
		want = append(want, "localhost/"+normalizeRef(ref))
	}
	for _, n := range names {
		q := qualifiedRef(n)
		for _, w := range want {
			if q == w || (strings.Contains(w, "@") && repoOf(q) == repoOf(w)) {
				return true
			}
		}
	}
	return false
}

// IdentityArgv prints the image ID of ref in the builder's storage, then
// the name(s) it was found under: buildah the one name it resolved ref
// to, docker and podman every tag of the image.
func (b Builder) IdentityArgv(ref string) []string {
	if b.Kind == imagemeta.Buildah {
		return b.cmd("inspect", "--type", "image", "--format", "{{.FromImageID}} {{.FromImage}}", ref)
	}
	return b.cmd("image", "inspect", "--format", `{{.Id}} {{join .RepoTags " "}}`, ref)
}

// parseIdentity splits IdentityArgv's output into the image ID and its
// names. Pure.
func parseIdentity(out string) (id string, names []string) {
	f := strings.Fields(out)
	if len(f) == 0 {
		return "", nil
	}
	id = f[0]
	if !strings.HasPrefix(id, "sha256:") {
		id = "sha256:" + id
	}
	return id, f[1:]
}

// LocalImage returns the ID of the image ref names exactly in the
// builder's storage (namesExactly); ok is false when there is none, or
// when the builder found ref only by a short-name match.
func (b Builder) LocalImage(ctx context.Context, ref string) (id string, ok bool) {
	argv := b.IdentityArgv(ref)
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).Output()
	if err != nil {
		return "", false
	}
	id, names := parseIdentity(string(out))
	if id == "" || !namesExactly(ref, names) {
		return "", false
	}
	return id, true
}

// localLookup is ImageLookup.Local for builder b: an exact name only.
func localLookup(ctx context.Context, b Builder) func(string) bool {
	return func(ref string) bool {
		_, ok := b.LocalImage(ctx, ref)
		return ok
	}
}

// recordLocalIDs sets the ID of every FROM the build takes from the
// builder's storage by name (no base, stand-in, pull or stage): the
// record then says which image the name meant, and a name given to
// another image changes the build's key.
func recordLocalIDs(ctx context.Context, b Builder, froms []imagemeta.ResolvedFrom) error {
	for i, f := range froms {
		if f.Image == "" || f.Base != "" || f.StandIn != "" || f.Digest != "" || f.How == "stage" || f.How == "scratch" {
			continue
		}
		id, ok := b.LocalImage(ctx, f.Image)
		if !ok {
			return fmt.Errorf("FROM %s: %s is no longer in the builder's storage under that exact name", f.Expanded, f.Image)
		}
		froms[i].ID = id
	}
	return nil
}
