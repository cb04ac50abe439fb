package taskrun

import (
	"io/fs"
	"path"
	"strings"
	"sync"
	"syscall"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer/trace"
)

// The agent's writable mounts that are not its overlay upper layer are
// the compose named volumes mounted on its rootfs: the agent, the
// sidecars sharing them and the verifiers all see their files, but the
// upper layer never holds them. (Its other mounts are the read-only
// authbench binary and policy, and per-container tmpfs on /dev and
// /dev/shm that no verifier sees; /tmp, /logs/agent and /solution are in
// the overlay.) A file there is the agent's when the agent's trace shows
// it writing that very file (volumeWrites) and the file is new or changed
// since the agent started (volumeSnapshot): a sidecar's own writes into
// the same volume (a sink's uploads) are never the agent's.

// volumeMount is a named volume as the agent's rootfs mounts it: its
// directory on the host and where the agent sees it (the mount point as
// the kernel names it, links in the image resolved).
type volumeMount struct {
	dir, target string
}

// volumeFile is a regular file of a volume when a snapshot saw it.
type volumeFile struct {
	id     fileID
	size   int64
	nlinks uint64
	ctime  unix.Timespec
}

// volumeSnapshot is the regular files of the agent's volumes, by the path
// the agent sees; complete is false when a volume held more than
// maxWrittenFiles files (the rest were not seen).
type volumeSnapshot struct {
	files    map[string]volumeFile
	complete bool
}

// snapshotVolumes lists the regular files of mounts by identity and
// status (ctime, which the agent cannot set), walking each volume's host
// directory beneath its descriptor: the sidecars that share it may still
// be running, and no link they put in any component is followed
// (internal/safefile).
func snapshotVolumes(mounts []volumeMount) volumeSnapshot {
	s := volumeSnapshot{files: map[string]volumeFile{}, complete: true}
	for _, m := range mounts {
		root, err := safefile.OpenReadDir(m.dir)
		if err != nil {
			continue // gone or unreadable
		}
		_ = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil // gone, unreadable, or not a file
			}
			if len(s.files) >= maxWrittenFiles {
				s.complete = false
				return fs.SkipAll
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			st, ok := info.Sys().(*syscall.Stat_t)
			if !ok || !info.Mode().IsRegular() {
				return nil
			}
			s.files[path.Join(m.target, p)] = volumeFile{
				id: fileID{st.Dev, st.Ino}, size: st.Size, nlinks: uint64(st.Nlink), ctime: unix.Timespec{Sec: st.Ctim.Sec, Nsec: st.Ctim.Nsec}}
			return nil
		})
		root.Close()
	}
	return s
}

// volumeWrites collects, from the agent's trace, the files it wrote that
// may be in a volume: the identity of each file it opened for writing on
// a volume's file system, and the names under a mount point it wrote
// without a traced identity (truncate(2) by name, an io_uring open).
// Safe for the concurrent traces of a model agent's containers.
type volumeWrites struct {
	devs    map[uint64]bool
	targets []string
	mu      sync.Mutex
	ids     map[fileID]bool
	paths   map[string]bool
	// overflow: more than maxWrittenFiles writes were seen.
	overflow bool
}

func newVolumeWrites(mounts []volumeMount) *volumeWrites {
	w := &volumeWrites{devs: map[uint64]bool{}, ids: map[fileID]bool{}, paths: map[string]bool{}}
	for _, m := range mounts {
		var st unix.Stat_t
		if unix.Stat(m.dir, &st) == nil {
			w.devs[st.Dev] = true
		}
		w.targets = append(w.targets, m.target)
	}
	return w
}

// observe notes one of the agent's events.
func (w *volumeWrites) observe(ev *trace.Event) {
	if ev.Failed() || ev.Axis != trace.AxisWrite || (ev.Op != trace.OpOpen && ev.Op != trace.OpTruncate) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.ids)+len(w.paths) >= maxWrittenFiles {
		w.overflow = true
		return
	}
	switch {
	case ev.Op == trace.OpOpen && ev.Ino != 0:
		if w.devs[ev.Dev] {
			w.ids[fileID{ev.Dev, ev.Ino}] = true
		}
	case w.under(ev.Path):
		w.paths[ev.Path] = true
	}
}

// under reports whether p is below one of the mount points.
func (w *volumeWrites) under(p string) bool {
	for _, t := range w.targets {
		if strings.HasPrefix(p, t+"/") {
			return true
		}
	}
	return false
}

// agentVolumeFiles is the attribution rule, pure: the files of after
// (the volumes when the agent's phase ended) that are the agent's: new
// or changed since before (the volumes when it started: another inode at
// the path, or a new status time) and written by the agent, by identity
// (ids) or, for a write traced without one, by name (paths). changed
// says whether any file is new or changed at all.
func agentVolumeFiles(before, after volumeSnapshot, ids map[fileID]bool, paths map[string]bool) (agent []string, changed bool) {
	for p, f := range after.files {
		if old, ok := before.files[p]; ok && old.id == f.id && old.ctime == f.ctime {
			continue
		}
		changed = true
		if ids[f.id] || paths[p] {
			agent = append(agent, p)
		}
	}
	return agent, changed
}

// snapshotAgentVolumes records the agent's volumes as they are before
// it starts and begins collecting its writes there.
func (r *runner) snapshotAgentVolumes() {
	if r.compose == nil || len(r.compose.agentMounts) == 0 {
		return
	}
	root, err := policy.NewRoot(r.Rootfs.Path)
	if err != nil {
		r.Log.Warn("agent volumes", zap.Error(err))
		return
	}
	for i, m := range r.compose.agentMounts {
		if real := root.RealpathNow(m.target); real != "" {
			r.compose.agentMounts[i].target = real
		}
	}
	r.volumesBefore = snapshotVolumes(r.compose.agentMounts)
	r.volumeWrites = newVolumeWrites(r.compose.agentMounts)
}

// noteVolumeWrites adds the files the agent left in its volumes to w,
// hashed within what hashing budget remains: when the agent's writes
// there cannot all be known (its trace was incomplete, too many files)
// and a volume changed, w is marked truncated (the verifiers' judgement
// is then incomplete).
func (r *runner) noteVolumeWrites(w *agentWrites, root *policy.Root) {
	vw := r.volumeWrites
	if vw == nil {
		return
	}
	after := snapshotVolumes(r.compose.agentMounts)
	vw.mu.Lock()
	agent, changed := agentVolumeFiles(r.volumesBefore, after, vw.ids, vw.paths)
	unknown := vw.overflow || !after.complete || !r.res.Traced || r.res.LostEvents > 0
	vw.mu.Unlock()
	if unknown && (changed || !after.complete) {
		w.truncated = true
	}
	for _, p := range agent {
		if len(w.byPath) >= maxWrittenFiles {
			w.truncated = true
			return
		}
		f, err := statAgentFile(root, p)
		if err != nil {
			continue // gone since the snapshot
		}
		if size := after.files[p].size; size <= maxHashedFile && w.hashed+size <= maxHashedTotal {
			w.hashed += size
			f.hash, _ = hashFile(root.HostPath(p))
		}
		w.byID[f.id], w.byPath[p] = f, f
	}
	r.Log.Info("agent volume writes", zap.Int("files", len(agent)), zap.Bool("changed", changed), zap.Bool("unknown", unknown))
}
