package env

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/authbench/authbench/tasks"
)

// standInFiles are the build contexts of the stand-ins, one directory
// each, named after the stand-in.
//
//go:embed standin
var standInFiles embed.FS

// StandIn is an official image that has no Debian base of its own here,
// built locally, offline, from a recipe (a Dockerfile on a local base)
// in its place.
type StandIn struct {
	// Name is its recipe's directory under env/standin.
	Name string
	// Repo is the repository it stands in for; Covers reports whether a
	// tag of it is covered.
	Repo   string
	Covers func(tag string) bool
	// Doc says what it is.
	Doc string
}

// StandIns are the recipes OfflineDefault may name.
var StandIns = []StandIn{
	{Name: "postgres-15", Repo: "postgres", Covers: func(t string) bool { return t == "15" || strings.HasPrefix(t, "15.") || strings.HasPrefix(t, "15-") },
		Doc: "Debian bookworm's PostgreSQL 15 with the official image's entrypoint (POSTGRES_USER/PASSWORD/DB, /docker-entrypoint-initdb.d)"},
}

// standInFor returns the stand-in covering the normalised ref.
func standInFor(ref string) (StandIn, bool) {
	repo, tag := repoOf(ref), strings.TrimPrefix(ref[len(repoOf(ref)):], ":")
	for _, si := range StandIns {
		if si.Repo == repo && si.Covers(tag) {
			return si, true
		}
	}
	return StandIn{}, false
}

// lookupStandIn returns the stand-in called name.
func lookupStandIn(name string) (StandIn, bool) {
	for _, si := range StandIns {
		if si.Name == name {
			return si, true
		}
	}
	return StandIn{}, false
}

// Tag is the builder tag of the stand-in built on the bases of bases: it
// changes with the recipe and with the default base.
func (si StandIn) Tag(bases Bases) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(standInFiles, "standin/"+si.Name, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := standInFiles.ReadFile(p)
		fmt.Fprintf(h, "%s %d\n", p, len(data))
		h.Write(data)
		return err
	})
	if err != nil {
		return "", err
	}
	base, err := bases.Config(BaseShortName)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "base %s\n", base.Key())
	return "localhost/authbench-standin-" + si.Name + ":" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

// ensureStandIn builds the stand-in into the builder's storage under tag
// unless it is there.
func ensureStandIn(ctx context.Context, s Store, o BuildOptions, name, tag string) error {
	si, ok := lookupStandIn(name)
	if !ok {
		return fmt.Errorf("unknown stand-in %q", name)
	}
	unlock, err := s.lock("standin-" + si.Name)
	if err != nil {
		return err
	}
	defer unlock()
	if o.Builder.Exists(ctx, tag) {
		return nil
	}
	tmp, err := s.tmpDir("standin-" + si.Name + "-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	sub, err := fs.Sub(standInFiles, "standin/"+si.Name)
	if err != nil {
		return err
	}
	if err := os.CopyFS(tmp, sub); err != nil {
		return err
	}
	if err := filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chmod(p, 0o644) // embedded files are read-only; the recipe sets modes itself
	}); err != nil {
		return err
	}
	dfPath := filepath.Join(tmp, "Dockerfile")
	data, err := os.ReadFile(dfPath)
	if err != nil {
		return err
	}
	df, err := tasks.ParseDockerfile(dfPath, data)
	if err != nil {
		return err
	}
	look := ImageLookup{Local: localLookup(ctx, o.Builder)}
	resolved, froms, err := ResolveFroms(df, nil, nil, o.Bases, look)
	if err != nil {
		return err
	}
	if _, _, err := ensureBases(ctx, s, o, froms); err != nil {
		return err
	}
	if err := os.WriteFile(dfPath, resolved, 0o644); err != nil {
		return err
	}
	if o.Log != nil {
		fmt.Fprintf(o.Log, "building the offline stand-in %s (%s) as %s\n", si.Name, si.Doc, tag)
	}
	return runBuild(ctx, s, o, BuildSpec{Dockerfile: dfPath, ContextDir: tmp, Tag: tag})
}
