package netproxy

import (
	"encoding/hex"
	"net/netip"
	"strings"
	"testing"
)

func TestDiagRequest(t *testing.T) {
	b := diagRequest(2, netip.MustParseAddrPort("127.0.0.1:50000"), netip.MustParseAddrPort("127.88.0.5:443"))
	// nlmsghdr (len 72, type 20, NLM_F_REQUEST); family 2, TCP; every
	// state; ports 50000, 443 big-endian; src, dst in 16 bytes each;
	// interface 0; INET_DIAG_NOCOOKIE.
	want := "48000000" + "1400" + "0100" + "00000000" + "00000000" + "02060000" + "ffffffff" + "c350" + "01bb" +
		"7f000001" + strings.Repeat("0", 24) + "7f580005" + strings.Repeat("0", 24) + "00000000" + "ffffffffffffffff"
	if got := hex.EncodeToString(b); got != want {
		t.Errorf("diagRequest =\n%s, want\n%s", got, want)
	}
	b6 := diagRequest(10, netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("[::1]:2"))
	if got := hex.EncodeToString(b6[16+12 : 16+44]); got != "00000000000000000000ffff7f000001"+"00000000000000000000000000000001" {
		t.Errorf("AF_INET6 addresses %s", got)
	}
	msg := make([]byte, 16+72)
	msg[4] = 20
	msg[16+68], msg[16+69] = 0x39, 0x30
	if got := diagInode(msg); got != 12345 {
		t.Errorf("diagInode = %d", got)
	}
	msg[4] = 2 // NLMSG_ERROR: nothing found
	if got := diagInode(msg); got != 0 || diagInode(msg[:20]) != 0 {
		t.Errorf("diagInode of an error = %d", got)
	}
}
