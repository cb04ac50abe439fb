package env

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
)

// TestBaseHasTheBaselineFiles: every file the default runtime baseline
// names in /etc exists in the base image. A spec's implicit_permissions
// copy that list, and under the published semantics an implicit read of
// a missing file grants its nearest existing ancestor: all of /etc
// (/etc/shadow included) for /etc/services on a base without netbase.
func TestBaseHasTheBaselineFiles(t *testing.T) {
	_, _, img := needBase(t)
	for _, p := range policy.DefaultBaseline().Permissions[policy.Read] {
		s := p.String()
		if !strings.HasPrefix(s, "/etc/") || strings.ContainsAny(s, "*?[") {
			continue
		}
		if _, err := os.Lstat(filepath.Join(img.Rootfs, s)); err != nil {
			t.Errorf("the base image lacks %s, which the default baseline names: %v", s, err)
		}
	}
}
