package capped

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriterKeepsTheCapAndCountsTheRest(t *testing.T) {
	tests := []struct {
		limit   int64
		writes  []string
		want    string
		dropped int64
	}{
		{0, []string{"abc", "def"}, "abcdef", 0},
		{10, []string{"abc", "def"}, "abcdef", 0},
		{6, []string{"abc", "def"}, "abcdef", 0},
		{4, []string{"abc", "def"}, "abcd" + Marker(4, 2), 2},
		{2, []string{"abc", "def", "g"}, "ab" + Marker(2, 5), 5},
	}
	for _, tt := range tests {
		f, err := os.Create(filepath.Join(t.TempDir(), "out"))
		if err != nil {
			t.Fatal(err)
		}
		w := NewWriter(f, "stdout", tt.limit, nil)
		for _, s := range tt.writes {
			if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", s, n, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(f.Name())
		if string(got) != tt.want || w.Dropped() != tt.dropped {
			t.Errorf("limit %d %q: stored %q, dropped %d; want %q, %d", tt.limit, tt.writes, got, w.Dropped(), tt.want, tt.dropped)
		}
	}
	if m := Marker(4, 2); m != "\n[authbench: output truncated after 4 bytes; 2 bytes dropped]\n" {
		t.Errorf("Marker = %q", m)
	}
}

// TestWriterNeverFails: after a write error the writer reports it once
// and goes on accepting (and counting) everything.
func TestWriterNeverFails(t *testing.T) {
	f, err := os.Open(os.DevNull) // read-only: every write fails
	if err != nil {
		t.Fatal(err)
	}
	var reported []error
	w := NewWriter(f, "stderr", 0, func(err error) { reported = append(reported, err) })
	for i := 0; i < 3; i++ {
		if n, err := w.Write([]byte("xyz")); n != 3 || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if len(reported) != 1 || !strings.HasPrefix(reported[0].Error(), "write stderr: ") || w.Dropped() != 9 {
		t.Fatalf("reported %v, dropped %d", reported, w.Dropped())
	}
	if err := w.Close(); err == nil || err != w.Err() {
		t.Fatalf("Close = %v", err)
	}
}
