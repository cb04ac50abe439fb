package trace

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestAxisOf(t *testing.T) {
	for _, c := range []struct {
		op    Op
		flags uint64
		want  Axis
	}{
		{OpOpen, 0, AxisRead}, {OpOpen, 0o2000000, AxisRead}, {OpOpen, 1, AxisWrite}, {OpOpen, 2, AxisWrite},
		{OpOpen, 0o100, AxisWrite}, {OpOpen, 0o1000, AxisWrite}, {OpExec, 0, AxisExecute},
		{OpMkdir, 0, AxisWrite}, {OpRename, 0, AxisWrite}, {OpTruncate, 0, AxisWrite}, {OpSymlink, 0, AxisWrite},
		{OpChdir, 0, AxisNone}, {OpFork, 0, AxisNone}, {OpExit, 0, AxisNone},
	} {
		if got := AxisOf(c.op, c.flags); got != c.want {
			t.Errorf("AxisOf(%s, %#o) = %q, want %q", c.op, c.flags, got, c.want)
		}
	}
}

// TestJSONBytesRoundTrip: names that are not UTF-8 survive JSON exactly.
func TestJSONBytesRoundTrip(t *testing.T) {
	in := Event{TS: 1, PID: 2, TGID: 2, PPID: 1, Start: 5, PStart: 4, Comm: "c\xff", Op: OpOpen, Path: "/tmp/\xff\xfe-é-\"q\"\n\x01",
		Path2: "/\xed\xa0\x80", Real: "/r/\xff", RealState: RealDeleted, Dev: 2049, Ino: 12, URing: true,
		Axis: AxisRead, Ret: -13, Errno: "EACCES"}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b) {
		t.Fatalf("invalid JSON %s", b)
	}
	want := `{"ts":1,"pid":2,"tgid":2,"ppid":1,"start":5,"pstart":4,"comm":"c\udcff","op":"open","path":"/tmp/\udcff\udcfe-é-\"q\"\n\u0001","path2":"/\udced\udca0\udc80",` +
		`"real":"/r/\udcff","real_state":"deleted","dev":2049,"ino":12,"io_uring":true,"flags":0,"axis":"read","ret":-13,"errno":"EACCES"}`
	if string(b) != want {
		t.Errorf("JSON\n got %s\nwant %s", b, want)
	}
	var out Event
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("round trip\n got %+v\nwant %+v", out, in)
	}
	// The exec and mmap fields, names as bytes too.
	ex := Event{Op: OpExec, Path: "/s", Real: "/s", Interp: "/usr/bin/d\xffash",
		LdEnv: []string{"LD_PRELOAD=/\xfe.so", "LD_AUDIT=\"x\""}, LdEnvTruncated: true, Axis: AxisExecute}
	mm := Event{Op: OpMmap, Path: "/l.so", Real: "/l.so", Dev: 1, Ino: 2, Flags: 5, Syscall: "mmap", Axis: AxisExecute}
	for _, in := range []Event{ex, mm} {
		b := in.AppendJSON(nil)
		var out Event
		if err := json.Unmarshal(b, &out); err != nil || !reflect.DeepEqual(out, in) {
			t.Errorf("round trip of %s\n got %+v (%v)\nwant %+v", b, out, err, in)
		}
	}
	if b := string(mm.AppendJSON(nil)); !strings.Contains(b, `"syscall":"mmap","flags":5,"axis":"execute"`) {
		t.Errorf("mmap JSON %s", b)
	}
	// Flags appear exactly for opens, even O_RDONLY; errno only on failure.
	b, _ = json.Marshal(Event{Op: OpExit, Ret: 3})
	if string(b) != `{"ts":0,"pid":0,"tgid":0,"ppid":0,"start":0,"pstart":0,"comm":"","op":"exit","path":"","axis":"","ret":3}` {
		t.Errorf("exit JSON %s", b)
	}
}

func FuzzJSONRoundTrip(f *testing.F) {
	f.Add("/a/\xff", "c")
	f.Fuzz(func(t *testing.T, p, comm string) {
		in := Event{Op: OpUnlink, Path: p, Comm: comm, Axis: AxisWrite}
		b := in.AppendJSON(nil)
		if !json.Valid(b) {
			t.Fatalf("invalid JSON %q", b)
		}
		var out Event
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		if out.Path != p || out.Comm != comm {
			t.Fatalf("round trip %q → %q", p, out.Path)
		}
	})
}
