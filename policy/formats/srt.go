package formats

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/authbench/authbench/policy"
)

// srtSettings are the Anthropic sandbox runtime's (srt) settings.
type srtSettings struct {
	Network    srtNetwork    `json:"network"`
	Filesystem srtFilesystem `json:"filesystem"`
}

type srtNetwork struct {
	AllowedDomains []string `json:"allowedDomains"`
	DeniedDomains  []string `json:"deniedDomains"`
}

type srtFilesystem struct {
	DenyRead   []string `json:"denyRead"`
	AllowWrite []string `json:"allowWrite"`
	DenyWrite  []string `json:"denyWrite"`
}

// exportSRT writes srt settings: the write directories as allowWrite, the
// network names as allowedDomains.
func exportSRT(pol *policy.Policy) (*Exported, error) {
	out := &Exported{Warnings: []Warning{
		{Axis: "read", Effect: Wider, Message: "srt reads every file but those in denyRead: the read allowlist is not expressible"},
		{Axis: "execute", Effect: Wider, Message: "srt has no execute axis: any readable program runs"},
	}}
	s := srtSettings{Network: srtNetwork{AllowedDomains: []string{}, DeniedDomains: []string{}},
		Filesystem: srtFilesystem{DenyRead: []string{}, DenyWrite: []string{}}}
	s.Filesystem.AllowWrite = writeRoots(pol, func(w Warning) { out.Warnings = append(out.Warnings, w) })
	if s.Filesystem.AllowWrite == nil {
		s.Filesystem.AllowWrite = []string{}
	}
	seen := map[string]bool{}
	for _, h := range pol.Network {
		if h.Port() != policy.AnyPort {
			out.Warnings = append(out.Warnings, Warning{Axis: "network", Entry: h.String(), Effect: Wider,
				Message: "srt allows domains, not ports: every port of the domain"})
		}
		if !seen[h.Host()] {
			seen[h.Host()] = true
			s.Network.AllowedDomains = append(s.Network.AllowedDomains, h.Host())
		}
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	out.Text = string(data) + "\n"
	return out, nil
}

// importSRT reads srt settings.
func importSRT(data []byte) (*builder, error) {
	var s srtSettings
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("not srt settings: %w", err)
	}
	b := &builder{}
	b.add(policy.Read, "/**")
	b.add(policy.Execute, "/**")
	b.warn("execute", "", Same, "srt has no execute axis: execute is /**")
	for _, d := range s.Filesystem.DenyRead {
		b.warn("read", d, Wider, "denyRead cannot be expressed in an allowlist: read is /**, this path included")
	}
	for _, d := range s.Filesystem.DenyWrite {
		b.warn("write", d, Wider, "denyWrite cannot be expressed in an allowlist: dropped")
	}
	for _, w := range s.Filesystem.AllowWrite {
		if !path.IsAbs(w) {
			b.warn("write", w, Narrower, "a relative write path (srt takes it from its working directory): left out")
			continue
		}
		b.add(policy.Write, path.Join(w, "**"))
	}
	for _, d := range s.Network.AllowedDomains {
		if strings.ContainsAny(d, "/:") {
			b.warn("network", d, Narrower, "not a domain: left out")
			continue
		}
		b.network = append(b.network, d+":*")
	}
	for _, d := range s.Network.DeniedDomains {
		b.warn("network", d, Wider, "deniedDomains cannot be expressed in an allowlist: dropped")
	}
	return b, nil
}
