package env

import "testing"

func TestQualifiedRef(t *testing.T) {
	for _, tc := range []struct{ ref, want string }{
		{"python", "docker.io/library/python:latest"},
		{"python:3.12-slim", "docker.io/library/python:3.12-slim"},
		{"docker.io/library/python:3.12-slim", "docker.io/library/python:3.12-slim"},
		{"index.docker.io/python", "docker.io/library/python:latest"},
		{"user/app:1", "docker.io/user/app:1"},
		{"localhost/authbench-base:bookworm", "localhost/authbench-base:bookworm"},
		{"127.0.0.1:5000/library/python:3.12-slim", "127.0.0.1:5000/library/python:3.12-slim"},
		{"ghcr.io/o/i", "ghcr.io/o/i:latest"},
		{"ghcr.io/o/i@sha256:ab", "ghcr.io/o/i@sha256:ab"},
	} {
		if got := qualifiedRef(tc.ref); got != tc.want {
			t.Errorf("qualifiedRef(%q) = %q, want %q", tc.ref, got, tc.want)
		}
	}
}

// TestNamesExactly: a short name is an image made here or Docker Hub's
// exact name, never another registry's image of the same name (buildah's
// short-name match after a pull).
func TestNamesExactly(t *testing.T) {
	for _, tc := range []struct {
		ref   string
		names []string
		want  bool
	}{
		{"python:3.12-slim", []string{"127.0.0.1:5000/library/python:3.12-slim"}, false},
		{"python:3.12-slim", []string{"localhost:5000/library/python:3.12-slim"}, false},
		{"python:3.12-slim", []string{"localhost/python:3.12-slim"}, true},
		{"python:3.12-slim", []string{"docker.io/library/python:3.12-slim"}, true},
		{"python:3.12-slim", []string{"python:3.12-slim"}, true}, // docker's RepoTags
		{"python:3.12-slim", []string{"localhost/python:3.13-slim"}, false},
		{"python", []string{"localhost/python:latest"}, true},
		{"mine:2", []string{"localhost/mine:2"}, true},
		{"localhost/mine:2", []string{"localhost/mine:2"}, true},
		{"localhost/mine:2", []string{"docker.io/library/mine:2"}, false},
		{"127.0.0.1:5000/library/python:3.12-slim", []string{"127.0.0.1:5000/library/python:3.12-slim"}, true},
		{"127.0.0.1:5000/library/python:3.12-slim", []string{"127.0.0.1:5001/library/python:3.12-slim"}, false},
		{"127.0.0.1:5000/library/python@sha256:ab", []string{"127.0.0.1:5000/library/python:3.12-slim"}, true},
		{"127.0.0.1:5000/library/python@sha256:ab", []string{"127.0.0.1:5000/library/ruby:3"}, false},
		{"python:3.12-slim", nil, false},
	} {
		if got := namesExactly(tc.ref, tc.names); got != tc.want {
			t.Errorf("namesExactly(%q, %q) = %v, want %v", tc.ref, tc.names, got, tc.want)
		}
	}
}

func TestParseIdentity(t *testing.T) {
	id, names := parseIdentity("87b406d7 127.0.0.1:5000/library/probe:1\n")
	if id != "sha256:87b406d7" || len(names) != 1 || names[0] != "127.0.0.1:5000/library/probe:1" {
		t.Errorf("buildah: %q %q", id, names)
	}
	id, names = parseIdentity("sha256:87b4 python:3 python:latest\n")
	if id != "sha256:87b4" || len(names) != 2 {
		t.Errorf("docker: %q %q", id, names)
	}
	if id, _ := parseIdentity("\n"); id != "" {
		t.Errorf("empty: %q", id)
	}
}
