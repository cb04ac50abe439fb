package env

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbench/authbench/tasks"
)

// TestBuildNetworkInstallsFromTheMirror: a RUN step's apt-get update and
// install from the base's mirror goes through the build's egress proxy
// (the mirror is a build host) — the legitimate network a Dockerfile
// needs still works.
func TestBuildNetworkInstallsFromTheMirror(t *testing.T) {
	s, b, base := needBase(t)
	dir := copyTask(t, "apt-package")
	os.WriteFile(filepath.Join(dir, tasks.DirEnvironment, ".nonce"), []byte(time.Now().String()), 0o644)
	task, err := tasks.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	img, built, err := BuildTask(context.Background(), s, task, BuildOptions{Builder: b, Base: base, Log: &log})
	if err != nil || !built {
		t.Fatalf("build: built=%v %v\n%s", built, err, log.String())
	}
	defer os.RemoveAll(filepath.Dir(img.Rootfs))
	if _, err := os.Stat(filepath.Join(img.Rootfs, "usr/bin/bc")); err != nil {
		t.Errorf("bc was not installed: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(img.Rootfs, "app")); err != nil || fi.Mode().Perm() != 0o777 {
		t.Errorf("/app: %v %v", fi, err)
	}
}

// TestBuildNetworkRefusesOtherHosts: a RUN step that connects to an
// address no build host has (the host's own, where the test listens)
// reaches nothing (the namespace has no route); one to an allowed name on
// a port the allow-list does not give is refused by the proxy, and the
// failed build's error names the step and that destination.
func TestBuildNetworkRefusesOtherHosts(t *testing.T) {
	s, b, base := needBase(t)
	addr := hostAddress(t)
	l, err := net.Listen("tcp", net.JoinHostPort(addr.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var hits atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			hits.Add(1)
			c.Close()
		}
	}()
	target := net.JoinHostPort(addr.String(), strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	dir := copyTask(t, "hello-standard")
	df := "FROM authbench-base\nRUN (curl -sS -m 5 http://" + target + "/ && echo reached-the-host) ; curl -sS -m 5 http://deb.debian.org:8080/\n"
	os.WriteFile(filepath.Join(dir, tasks.FileDockerfile), []byte(df), 0o644)
	task, err := tasks.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = BuildTask(context.Background(), s, task, BuildOptions{Builder: b, Base: base})
	var be *BuildError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want a *BuildError", err)
	}
	for _, want := range []string{`STEP "RUN (curl`, "the build's network refused: deb.debian.org:8080"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
	if n := hits.Load(); n > 0 {
		t.Errorf("the host's listener accepted %d connections from the step", n)
	}
}

// hostAddress is a non-loopback address of this machine.
func hostAddress(t *testing.T) netip.Addr {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Is4() && !p.Addr().IsLoopback() {
			return p.Addr()
		}
	}
	t.Fatal("no non-loopback IPv4 address")
	return netip.Addr{}
}
