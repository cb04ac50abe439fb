package imagemeta

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestParseBuilderKind(t *testing.T) {
	for _, c := range []struct {
		in   string
		want BuilderKind
		ok   bool
	}{{"buildah", Buildah, true}, {"docker", Docker, true}, {"podman", Podman, true}, {"Buildah", "", false}, {"", "", false}, {"kaniko", "", false}} {
		got, err := ParseBuilderKind(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("ParseBuilderKind(%q) = %q, %v", c.in, got, err)
		}
	}
}

// TestTaskImageJSON: the record a build writes reads back as it was
// (what the oracle decodes from a build's result).
func TestTaskImageJSON(t *testing.T) {
	img := TaskImage{Task: "t", Key: "k", Builder: Podman, Rootfs: "/r",
		Froms:  []ResolvedFrom{{Line: 1, Written: "debian:12", Expanded: "debian:12", Image: "authbench-base", How: "default"}},
		Config: ImageConfig{Env: []string{"PATH=/bin"}, WorkingDir: "/app", User: "1000"}}
	data, err := json.Marshal(img)
	if err != nil {
		t.Fatal(err)
	}
	var back TaskImage
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, img) {
		t.Errorf("round trip: %+v, %v (from %s)", back, err, data)
	}
}
