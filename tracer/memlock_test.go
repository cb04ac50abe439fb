package tracer

import "testing"

func TestMemlockCharged(t *testing.T) {
	tests := []struct {
		release string
		want    bool
	}{
		{"4.19.0-27-amd64", true},
		{"5.10.226", true},
		{"5.11.0", false},
		{"5.15.0-122-generic", false},
		{"6.8.0-45-generic", false},
		{"6.12.9+bpo-amd64", false},
		{"10.0", false},
		{"3.10.0-1160.el7.x86_64", true},
		{"garbage", true},
		{"", true},
		{"6", true},
	}
	for _, tc := range tests {
		if got := memlockCharged(tc.release); got != tc.want {
			t.Errorf("memlockCharged(%q) = %v, want %v", tc.release, got, tc.want)
		}
	}
}
