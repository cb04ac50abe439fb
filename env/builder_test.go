package env

import (
	"reflect"
	"slices"
	"testing"

	"github.com/authbench/authbench/env/imagemeta"
)

func TestBuilderArgv(t *testing.T) {
	buildah := Builder{Kind: imagemeta.Buildah, Root: "/img/buildah/root", RunRoot: "/img/buildah/run"}
	docker := Builder{Kind: imagemeta.Docker}
	podman := Builder{Kind: imagemeta.Podman, Bin: "/usr/bin/podman"}
	spec := BuildSpec{Dockerfile: "/tmp/x/Dockerfile", ContextDir: "/t/environment", Tag: "localhost/authbench-task/t:k", BuildArgs: map[string]string{"B": "2", "A": "1"}}
	confined := spec
	confined.Runtime, confined.NetNS, confined.Hosts = "/img/buildah/runtime/runc-x", "/proc/1/fd/7", []string{"deb.debian.org:127.88.0.1"}
	vfs := Builder{Kind: imagemeta.Buildah, Driver: VFS, Root: "/img/buildah/root", RunRoot: "/img/buildah/run"}
	g := []string{"buildah", "--storage-driver", "overlay", "--root", "/img/buildah/root", "--runroot", "/img/buildah/run"}
	gv := []string{"buildah", "--storage-driver", "vfs", "--root", "/img/buildah/root", "--runroot", "/img/buildah/run"}
	cat := func(a []string, b ...string) []string { return append(append([]string{}, a...), b...) }
	cases := []struct {
		name string
		got  []string
		want []string
	}{
		{"buildah build", buildah.BuildArgv(confined), cat(g, "build", "--isolation", "oci", "--runtime", "/img/buildah/runtime/runc-x",
			"--userns-uid-map", "0:1073741824:65536", "--userns-gid-map", "0:1073741824:65536",
			"--pid", "private", "--ipc", "private", "--uts", "private", "--cgroupns", "private",
			"--network", "ns:/proc/1/fd/7", "--add-host", "deb.debian.org:127.88.0.1", "--pull=never", "--layers=false",
			"-f", "/tmp/x/Dockerfile", "-t", "localhost/authbench-task/t:k", "--build-arg", "A=1", "--build-arg", "B=2", "/t/environment")},
		{"docker build", docker.BuildArgv(spec), []string{"docker", "build", "-f", "/tmp/x/Dockerfile", "-t", "localhost/authbench-task/t:k",
			"--build-arg", "A=1", "--build-arg", "B=2", "/t/environment"}},
		{"podman build", podman.BuildArgv(spec), []string{"/usr/bin/podman", "build", "--pull=never", "-f", "/tmp/x/Dockerfile", "-t",
			"localhost/authbench-task/t:k", "--build-arg", "A=1", "--build-arg", "B=2", "/t/environment"}},
		{"buildah exists", buildah.ExistsArgv("r"), cat(g, "inspect", "--type", "image", "--format", "{{.FromImageID}}", "r")},
		{"docker exists", docker.ExistsArgv("r"), []string{"docker", "image", "inspect", "--format", "{{.Id}}", "r"}},
		{"podman exists", podman.ExistsArgv("r"), []string{"/usr/bin/podman", "image", "exists", "r"}},
		{"buildah inspect", buildah.InspectArgv("r"), cat(g, "inspect", "--type", "image", "r")},
		{"docker inspect", docker.InspectArgv("r"), []string{"docker", "image", "inspect", "r"}},
		{"docker import", docker.ImportArgv("localhost/authbench-base:k"), []string{"docker", "import", "-", "localhost/authbench-base:k"}},
		{"podman import", podman.ImportArgv("b:k"), []string{"/usr/bin/podman", "import", "-", "b:k"}},
		{"buildah from", buildah.CreateArgv("r"), cat(g, "from", "--pull=never", "--quiet", "r")},
		{"docker create", docker.CreateArgv("r"), []string{"docker", "create", "r", "/bin/true"}},
		{"docker export", docker.ExportArgv("c"), []string{"docker", "export", "c"}},
		{"buildah scratch", buildah.FromScratchArgv(), cat(g, "from", "--quiet", "scratch")},
		{"buildah mount", buildah.MountArgv("c"), cat(g, "mount", "c")},
		{"buildah commit", buildah.CommitArgv("c", "t"), cat(g, "commit", "--quiet", "--format", "oci", "c", "t")},
		{"buildah rm", buildah.RemoveContainerArgv("c"), cat(g, "rm", "c")},
		{"docker rm", docker.RemoveContainerArgv("c"), []string{"docker", "rm", "-f", "c"}},
		{"buildah rmi", buildah.RemoveImageArgv("t"), cat(g, "rmi", "t")},
		{"buildah rmi on vfs", vfs.RemoveImageArgv("t"), cat(gv, "rmi", "t")},
		{"new builder", NewBuilder(imagemeta.Buildah, Store{Dir: "/img"}).MountArgv("c"),
			[]string{"buildah", "--storage-driver", "overlay", "--root", "/img/buildah/overlay/root", "--runroot", "/img/buildah/overlay/run", "mount", "c"}},
		{"podman rmi", podman.RemoveImageArgv("t"), []string{"/usr/bin/podman", "image", "rm", "t"}},
		{"tag", docker.TagArgv("a", "b"), []string{"docker", "tag", "a", "b"}},
	}
	for _, tc := range cases {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, tc.got, tc.want)
		}
	}
}

func TestParseBuilderKind(t *testing.T) {
	for _, k := range []string{"buildah", "docker", "podman"} {
		if got, err := imagemeta.ParseBuilderKind(k); err != nil || string(got) != k {
			t.Errorf("ParseBuilderKind(%q) = %v, %v", k, got, err)
		}
	}
	if _, err := imagemeta.ParseBuilderKind("kaniko"); err == nil {
		t.Error("kaniko: want an error")
	}
}

func TestParseInspect(t *testing.T) {
	b := `{"Type":"buildah 0.0.1","OCIv1":{"config":{"Env":["PATH=/bin","FOO=bar"],"WorkingDir":"/app","User":"1000"}}}`
	got, err := ParseInspect(imagemeta.Buildah, []byte(b))
	if err != nil || got.WorkingDir != "/app" || got.User != "1000" || len(got.Env) != 2 {
		t.Errorf("buildah: %+v %v", got, err)
	}
	d := `[{"Id":"sha256:x","Config":{"Env":["PATH=/bin"],"WorkingDir":"/w","Cmd":["bash"]}}]`
	got, err = ParseInspect(imagemeta.Docker, []byte(d))
	if err != nil || got.WorkingDir != "/w" || got.Cmd[0] != "bash" {
		t.Errorf("docker: %+v %v", got, err)
	}
	if _, err := ParseInspect(imagemeta.Podman, []byte("[]")); err == nil {
		t.Error("empty podman inspect: want an error")
	}
}

// TestBuildArgvUnconfinedSpecFails: a buildah BuildSpec that names no
// build runtime or network namespace gets paths that are not there (the
// build fails), never buildah's default runtime or network.
func TestBuildArgvUnconfinedSpecFails(t *testing.T) {
	argv := Builder{Kind: imagemeta.Buildah}.BuildArgv(BuildSpec{Dockerfile: "D", ContextDir: "C", Tag: "t"})
	for i, a := range argv {
		switch a {
		case "--runtime":
			if argv[i+1] != unsetPath {
				t.Errorf("--runtime %s", argv[i+1])
			}
		case "--network":
			if argv[i+1] != "ns:"+unsetPath {
				t.Errorf("--network %s", argv[i+1])
			}
		}
	}
	if !slices.Contains(argv, "--runtime") || !slices.Contains(argv, "--network") {
		t.Errorf("argv %v", argv)
	}
}
