package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeShardConfig writes the config.json of a bench out dir of shard sh.
func writeShardConfig(t *testing.T, dir, shard, sources string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{"authbench": map[string]any{"tasks": "/srv/tasks", "sources": strings.Split(sources, ","),
		"agent": "oracle", "trials": 1, "shard": shard, "semantics": "published"}}
	data, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBenchMergeRefusesBadInput(t *testing.T) {
	base := t.TempDir()
	if code, _, stderr := runCLI("bench", "merge", filepath.Join(base, "out")); code != 2 || !strings.Contains(stderr, "at least one SHARD") {
		t.Fatalf("no shard: exit %d, %s", code, stderr)
	}
	s0, s1 := filepath.Join(base, "s0"), filepath.Join(base, "s1")
	writeShardConfig(t, s0, "0/2", "spec")
	writeShardConfig(t, s1, "1/2", "spec,trace")
	code, _, stderr := runCLI("bench", "merge", filepath.Join(base, "out"), s0, s1)
	if code != 2 || !strings.Contains(stderr, "--sources") || !strings.Contains(stderr, s1) {
		t.Fatalf("shards of other sources: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(base, "out")); !os.IsNotExist(err) {
		t.Fatalf("a refused merge made its out dir: %v", err)
	}
}
