package lifecycle

import (
	"syscall"
	"testing"
)

func TestParseDisposition(t *testing.T) {
	// SIGINT is bit 1 (value 0x2), SIGTERM bit 14 (0x4000), SIGHUP bit 0.
	status := "Name:\tsh\nSigQ:\t0/1\nSigPnd:\t0000000000000000\nSigBlk:\t0000000000000000\n" +
		"SigIgn:\t0000000000000004\nSigCgt:\t0000000000004002\n"
	for _, tc := range []struct {
		sig  syscall.Signal
		want Disposition
	}{
		{syscall.SIGINT, Caught},
		{syscall.SIGTERM, Caught},
		{syscall.SIGQUIT, Ignored},
		{syscall.SIGHUP, Default},
	} {
		got, err := ParseDisposition(status, tc.sig)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %v, %v; want %v", tc.sig, got, err, tc.want)
		}
	}
	if _, err := ParseDisposition("Name:\tsh\n", syscall.SIGINT); err == nil {
		t.Error("a status without masks parsed")
	}
}
