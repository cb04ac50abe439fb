package env

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// OnUbuntu reports whether the family's published base is an Ubuntu
// image: such a family is built on that image, pulled from a configured
// registry, before its Debian stand-in is used.
func (f BaseFamily) OnUbuntu() bool { return repoOf(normalizeRef(f.Published)) == "ubuntu" }

// familyLayer is the Dockerfile that makes family f on pulled, its
// published base as pulled: the family's packages are installed, apt
// asked only for those the image lacks. Pure.
func familyLayer(f BaseFamily, pulled string) string {
	return "FROM " + pulled + "\n" +
		"RUN missing=; for p in " + strings.Join(f.Packages, " ") + "; do dpkg -s \"$p\" >/dev/null 2>&1 || missing=\"$missing $p\"; done; " +
		"if [ -n \"$missing\" ]; then apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing " +
		"&& rm -rf /var/lib/apt/lists/*; fi\n"
}

// familyOnPulledTag is the builder tag of family f built on the pulled
// image with digest: it changes with the image and with the recipe. Pure.
func familyOnPulledTag(f BaseFamily, pulled, digest string) string {
	sum := sha256.Sum256([]byte(digest + "\n" + familyLayer(f, pulled)))
	return "localhost/authbench-" + f.Name + "-on-" + repoOf(normalizeRef(f.Published)) + ":" + hex.EncodeToString(sum[:])[:16]
}

// buildFamilyOnPulled pulls f's published base from the registries of p
// and builds the family on it (unless built already); it returns the
// image, the pulled base's digest and the registry.
func buildFamilyOnPulled(ctx context.Context, s Store, o BuildOptions, p Puller, f BaseFamily) (image, digest, registry string, err error) {
	pulled, digest, registry, err := p.Pull(ctx, f.Published)
	if err != nil {
		return "", "", "", err
	}
	tag := familyOnPulledTag(f, pulled, digest)
	unlock, err := s.lock("family-pulled-" + f.Name)
	if err != nil {
		return "", "", "", err
	}
	defer unlock()
	if o.Builder.Exists(ctx, tag) {
		return tag, digest, registry, nil
	}
	tmp, err := s.tmpDir("family-pulled-" + f.Name + "-")
	if err != nil {
		return "", "", "", err
	}
	defer os.RemoveAll(tmp)
	df := filepath.Join(tmp, "Dockerfile")
	if err := os.WriteFile(df, []byte(familyLayer(f, pulled)), 0o644); err != nil {
		return "", "", "", err
	}
	if o.Log != nil {
		fmt.Fprintf(o.Log, "building the base family %s on %s (%s, pulled from %s) as %s\n", f.Name, f.Published, digest, registry, tag)
	}
	if err := runBuild(ctx, s, o, BuildSpec{Dockerfile: df, ContextDir: tmp, Tag: tag}); err != nil {
		return "", "", "", fmt.Errorf("build family %s on %s: %w", f.Name, pulled, err)
	}
	return tag, digest, registry, nil
}
