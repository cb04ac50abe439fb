package env

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/tasks"
)

// loopbackRegistry serves Debian's docker-registry on a free loopback
// port with its storage in a temporary directory, until the test ends.
func loopbackRegistry(t *testing.T) Registry {
	t.Helper()
	need(t, "docker-registry", haveBin("docker-registry"))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("version: 0.1\nlog: {level: error}\nstorage:\n  filesystem: {rootdirectory: %s}\nhttp:\n  addr: %s\n", filepath.Join(dir, "data"), addr)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("docker-registry", "serve", cfg)
	log, err := os.Create(filepath.Join(dir, "registry.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		log.Close()
		if t.Failed() {
			data, _ := os.ReadFile(log.Name())
			t.Logf("registry log:\n%s", data)
		}
	})
	for i := 0; ; i++ {
		resp, err := http.Get("http://" + addr + "/v2/")
		if err == nil {
			resp.Body.Close()
			break
		}
		if i == 100 {
			t.Fatalf("registry on %s: %v", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return Registry{Host: addr, Plain: true}
}

// registryTest is what each registry test starts with: root, buildah, a
// loopback registry, the shared test store and its builder, and a context
// bounded by timeout.
func registryTest(t *testing.T, timeout time.Duration) (Registry, Store, Builder, context.Context) {
	t.Helper()
	needRoot(t)
	need(t, "buildah", haveBin("buildah"))
	reg := loopbackRegistry(t)
	s := testStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return reg, s, NewBuilder(imagemeta.Buildah, s), ctx
}

// pullProbe is the image TestPullFromLoopbackRegistry pulls: a name no
// task uses.
const pullProbe = "authbench-pull-probe:3.12-slim"

// TestPullFromLoopbackRegistry: a FROM that the image map and the
// builder's storage do not have is pulled from a configured registry
// (here Debian's docker-registry on loopback, holding an image built
// and pushed by the test) before any offline default: the task image
// holds the pulled image's files, and the FROM records the registry and
// the digest the registry serves.
func TestPullFromLoopbackRegistry(t *testing.T) {
	reg, s, b, ctx := registryTest(t, 5*time.Minute)
	// A one-file image, pushed to the registry under a name of its own:
	// the builder's storage is shared with other packages' tests, and
	// buildah matches a short name such as python:3.12-slim against any
	// registry's image of that name there, so a pulled python:3.12-slim
	// would stand in for theirs.
	marker := fmt.Sprintf("pulled from %s\n", reg.Host)
	pulled := pushMarked(ctx, t, b, reg, b.FromScratchArgv(), marker, "library/"+pullProbe)
	if b.Exists(ctx, pulled) {
		t.Fatalf("%s is in storage before the pull", pulled)
	}

	dir := copyTask(t, "hello-standard")
	if err := os.WriteFile(filepath.Join(dir, tasks.FileDockerfile), []byte("FROM "+pullProbe+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	task, err := tasks.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := BuildTask(ctx, s, task, BuildOptions{Builder: b, Registries: []Registry{reg}})
	if err != nil {
		t.Fatal(err)
	}
	forgetImage(t, img)
	f := img.Froms[0]
	if f.How != "pull "+reg.Host || f.Image != repoOf(pulled)+"@"+f.Digest || !strings.HasPrefix(f.Digest, "sha256:") {
		t.Fatalf("from = %+v", f)
	}
	if got, _ := os.ReadFile(filepath.Join(img.Rootfs, "marker")); string(got) != marker {
		t.Errorf("the image lacks the pulled marker: %q", got)
	}
	repo, tag, _ := strings.Cut(pullProbe, ":")
	want := manifestDigest(t, reg, "library/"+repo, tag)
	if f.Digest != want {
		t.Errorf("recorded digest %s, the registry serves %s", f.Digest, want)
	}
	subs := Substitutions(img.Froms)
	if len(subs) != 1 || subs[0].Used != repoOf(pulled)+"@"+want || !strings.Contains(subs[0].Why, reg.Host) {
		t.Errorf("substitutions %+v", subs)
	}
	t.Logf("pulled %s from %s, digest %s", pullProbe, reg.Host, f.Digest)

	// A registry without the image: the offline default, with its reason.
	dfile, err := tasks.ParseDockerfile("Dockerfile", []byte("FROM ubuntu:24.04\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := Puller{Builder: b, Registries: []Registry{reg}}
	_, froms, err := ResolveFroms(dfile, nil, nil, Bases{}, ImageLookup{
		Local: localLookup(ctx, b),
		Pull:  func(ref string) (string, string, string, error) { return p.Pull(ctx, ref) },
	})
	if err != nil || froms[0].How != "default" || !strings.Contains(froms[0].Why, "Debian bookworm stands in for Ubuntu") {
		t.Errorf("ubuntu:24.04 with a registry that lacks it: %+v %v", froms, err)
	}
}

// movedProbe is the image TestPullNoticesAMovedTag moves: a name no
// task uses.
const movedProbe = "authbench-moved-probe:1"

// TestPullNoticesAMovedTag: every build asks the registry again, so when
// the registry's tag is moved to another image the next build records
// the new digest and holds the new image's files (on 98203a8 it reused
// the first pull: the image in storage under that name was never asked
// about again); with the registry removed from the configuration, the
// image pulled earlier does not stand in under its short name (buildah
// matches "NAME:TAG" against "REG/library/NAME:TAG"): the FROM resolves
// nowhere instead of "local".
func TestPullNoticesAMovedTag(t *testing.T) {
	reg, s, b, ctx := registryTest(t, 5*time.Minute)
	repo, tag, _ := strings.Cut(movedProbe, ":")
	build := func(marker string, regs []Registry, log ...io.Writer) (*imagemeta.TaskImage, error) {
		t.Helper()
		dir := copyTask(t, "hello-standard")
		if err := os.WriteFile(filepath.Join(dir, tasks.FileDockerfile), []byte("FROM "+movedProbe+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		task, err := tasks.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		o := BuildOptions{Builder: b, Registries: regs}
		if len(log) > 0 {
			o.Log = log[0]
		}
		img, _, err := BuildTask(ctx, s, task, o)
		if err != nil {
			return nil, err
		}
		forgetImage(t, img)
		if got, _ := os.ReadFile(filepath.Join(img.Rootfs, "marker")); string(got) != marker {
			t.Errorf("the image holds %q, want %q (what the registry serves now)", got, marker)
		}
		return img, nil
	}
	first := fmt.Sprintf("first image on %s\n", reg.Host)
	pulled := pushMarked(ctx, t, b, reg, b.FromScratchArgv(), first, "library/"+movedProbe)
	d1 := manifestDigest(t, reg, "library/"+repo, tag)
	img, err := build(first, []Registry{reg})
	if err != nil {
		t.Fatal(err)
	}
	if f := img.Froms[0]; f.Digest != d1 || f.Image != repoOf(pulled)+"@"+d1 {
		t.Fatalf("first build: from %+v, want digest %s", f, d1)
	}

	second := fmt.Sprintf("second image on %s\n", reg.Host)
	pushMarked(ctx, t, b, reg, b.FromScratchArgv(), second, "library/"+movedProbe)
	d2 := manifestDigest(t, reg, "library/"+repo, tag)
	if d2 == d1 {
		t.Fatalf("the tag did not move: %s", d2)
	}
	var log strings.Builder
	img, err = build(second, []Registry{reg}, &log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "the registry moved the tag: now "+d2) {
		t.Errorf("the build log does not say the tag moved:\n%s", log.String())
	}
	if f := img.Froms[0]; f.Digest != d2 || f.Image != repoOf(pulled)+"@"+d2 {
		t.Fatalf("after the tag moved: from %+v, want digest %s (was %s)", f, d2, d1)
	}
	if !b.Exists(ctx, movedProbe) {
		t.Fatalf("%s is not found by a short-name match: the case below proves nothing", movedProbe)
	}

	_, err = build(second, nil)
	var ue *UnresolvedError
	if !errors.As(err, &ue) || ue.Froms[0].Expanded != movedProbe {
		t.Fatalf("no registry configured: %v; want %s unresolved, not the pulled image as local", err, movedProbe)
	}
}

// pushMarked makes a container with from (a buildah from argv), writes
// marker to its /marker and pushes it to reg as repoTag; it returns the
// name the pushed image has when pulled, which is removed (with the
// local image) when the test ends.
func pushMarked(ctx context.Context, t *testing.T, b Builder, reg Registry, from []string, marker, repoTag string) string {
	t.Helper()
	run := func(argv ...string) string {
		t.Helper()
		out, err := runTool(ctx, nil, nil, argv...)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out)
	}
	ctr := run(from...)
	defer runTool(context.Background(), nil, nil, b.RemoveContainerArgv(ctr)...)
	mnt := run(b.MountArgv(ctr)...)
	if err := os.WriteFile(filepath.Join(mnt, "marker"), []byte(marker), 0o644); err != nil {
		t.Fatal(err)
	}
	run(b.UnmountArgv(ctr)...)
	local := "localhost/authbench-pull-test-" + strings.NewReplacer("/", "-", ":", "-").Replace(repoTag) + ":" + strings.ReplaceAll(reg.Host, ":", "-")
	run(b.CommitArgv(ctr, local)...)
	pulled := reg.Host + "/" + repoTag
	t.Cleanup(func() {
		// -f: the task image built on it must not keep the name alive.
		runTool(context.Background(), nil, nil, b.cmd("rmi", "-f", local)...)
		runTool(context.Background(), nil, nil, b.cmd("rmi", "-f", pulled)...)
	})
	run(b.cmd("push", "--quiet", "--tls-verify=false", local, "docker://"+pulled)...)
	return pulled
}

// manifestDigest asks the registry for the digest of repo:tag.
func manifestDigest(t *testing.T, reg Registry, repo, tag string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodHead, "http://"+reg.Host+"/v2/"+repo+"/manifests/"+tag, nil)
	req.Header.Set("Accept", "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get("Docker-Content-Digest")
}

// TestUbuntuFamilyPulledFromLoopbackRegistry: a FROM of an Ubuntu family
// base (authbench-ubuntu-py-plain-base) with a registry that has
// ubuntu:24.04 (here an image built locally and pushed to Debian's
// docker-registry on loopback) builds the family on the pulled image,
// with the family's packages, and records the pull as the FROM's
// substitution; a registry without ubuntu:24.04 leaves the family on
// its Debian stand-in, said so in the substitution.
func TestUbuntuFamilyPulledFromLoopbackRegistry(t *testing.T) {
	reg, s, b, ctx := registryTest(t, 15*time.Minute)
	// The default base with a marker, pushed as the registry's ubuntu:24.04.
	base, err := ensureBase(ctx, s, BuildOptions{Builder: b}, BaseShortName)
	if err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("ubuntu from %s\n", reg.Host)
	pulled := pushMarked(ctx, t, b, reg, b.cmd("from", "--quiet", "--pull=never", base.Config.Tag()), marker, "library/ubuntu:24.04")

	dir := copyTask(t, "hello-standard")
	if err := os.WriteFile(filepath.Join(dir, tasks.FileDockerfile), []byte("FROM authbench-ubuntu-py-plain-base:local\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	task, err := tasks.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	img, _, err := BuildTask(ctx, s, task, BuildOptions{Builder: b, Registries: []Registry{reg}, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	forgetImage(t, img)
	f := img.Froms[0]
	defer runTool(context.Background(), nil, nil, b.cmd("rmi", "-f", f.Image)...)
	want := manifestDigest(t, reg, "library/ubuntu", "24.04")
	if f.How != "pull "+reg.Host || f.Digest != want || f.Base != "" || !strings.HasPrefix(f.Image, "localhost/authbench-ubuntu-py-on-ubuntu:") {
		t.Fatalf("from = %+v, want ubuntu-py built on %s@%s\n%s", f, pulled, want, log.String())
	}
	if got, _ := os.ReadFile(filepath.Join(img.Rootfs, "marker")); string(got) != marker {
		t.Errorf("the image lacks the pulled marker: %q", got)
	}
	for _, tool := range []string{"usr/bin/tmux", "usr/bin/strace", "usr/bin/bc", "usr/bin/python3"} {
		if _, err := os.Stat(filepath.Join(img.Rootfs, tool)); err != nil {
			t.Errorf("the family's packages are not in the image: %v", err)
		}
	}
	subs := Substitutions(img.Froms)
	if len(subs) != 1 || subs[0].Ref != "authbench-ubuntu-py-plain-base:local" || subs[0].Used != f.Image+"@"+want ||
		!strings.Contains(subs[0].Why, "ubuntu:24.04 pulled from the registry "+reg.Host) {
		t.Errorf("substitutions %+v", subs)
	}
	t.Logf("ubuntu-py built on %s (%s) as %s", pulled, want, f.Image)

	// A registry without ubuntu:24.04: the Debian stand-in, said so.
	empty := loopbackRegistry(t)
	p := Puller{Builder: b, Registries: []Registry{empty}}
	dfile, err := tasks.ParseDockerfile("Dockerfile", []byte("FROM authbench-tbench-ubuntu-py-plain-base:local\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, froms, err := ResolveFroms(dfile, nil, nil, Bases{}, ImageLookup{
		Local: localLookup(ctx, b),
		Pull:  func(ref string) (string, string, string, error) { return p.Pull(ctx, ref) },
		Family: func(f BaseFamily) (string, string, string, error) {
			return buildFamilyOnPulled(ctx, s, BuildOptions{Builder: b}, p, f)
		},
	})
	if err != nil || froms[0].How != "family tbench-ubuntu-py" || froms[0].Base != "tbench-ubuntu-py" ||
		!strings.Contains(froms[0].Why, "offline stand-in for ubuntu:24.04: Debian bookworm") {
		t.Errorf("an Ubuntu family with a registry that lacks ubuntu:24.04: %+v %v", froms, err)
	}
}

// forgetImage removes img from the shared test image cache when the test
// ends: an image built on what a test pushed to its own registry (a
// marker naming the registry's random port) has a new key every run and
// would never be used again (1.2 GB each).
func forgetImage(t *testing.T, img *imagemeta.TaskImage) {
	t.Helper()
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(img.Rootfs)) })
}
