/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bounded, verifier-friendly directory walk: from a (dentry, vfsmount)
 * pair up to the task's root, crossing mount points through struct mount,
 * writing each name (NUL-terminated, leaf first) into the scratch event.
 * User space reverses the names and joins them with the path as given.
 * The walk is a bpf_loop callback so its bound costs the verifier nothing.
 */
#ifndef AB_PATH_H
#define AB_PATH_H

struct ab_walk {
	__u64 dentry;
	__u64 vfsmnt;
	__u64 mntroot; /* vfsmnt->mnt_root, read once per mount */
	__u64 rootd;
	__u64 rootm;
	__u32 off;   /* next write offset in ab_event.data */
	__u32 start; /* offset where this directory began */
	__u8 done;    /* reached the root (or the top of the namespace) */
	__u8 trunc;   /* ran out of space */
	__u8 reached; /* reached the task's root, not only the namespace's top */
};

/* The walk state lives in a per-CPU map, not on the stack: the verifier
 * then sees each iteration's offset as unknown and the callback converges. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ab_walk);
} ab_walkstate SEC(".maps");

static long ab_walk_step(__u32 i, void *ctx)
{
	__u32 zero = 0;
	struct ab_walk *w = bpf_map_lookup_elem(&ab_walkstate, &zero);
	if (!w)
		return 1;
	struct dentry *d = (void *)w->dentry;
	struct vfsmount *vm = (void *)w->vfsmnt;

	if (!d || !vm || (w->dentry == w->rootd && w->vfsmnt == w->rootm)) {
		w->done = 1;
		w->reached = d && vm;
		return 1;
	}
	struct dentry *mnt_root = (void *)w->mntroot;
	struct dentry *parent = BPF_CORE_READ(d, d_parent);
	if (d == mnt_root || d == parent) {
		if (d != mnt_root) { /* a disconnected dentry: stop here */
			w->done = 1;
			return 1;
		}
		struct mount *m = (void *)vm - bpf_core_field_offset(struct mount, mnt);
		struct mount *mp = BPF_CORE_READ(m, mnt_parent);
		if (!mp || mp == m) { /* the top of the mount namespace */
			w->done = 1;
			return 1;
		}
		w->dentry = (__u64)BPF_CORE_READ(m, mnt_mountpoint);
		w->vfsmnt = (__u64)mp + bpf_core_field_offset(struct mount, mnt);
		w->mntroot = (__u64)BPF_CORE_READ(mp, mnt.mnt_root);
		return 0;
	}
	if (w->off - w->start > AB_DIR_MAX || w->off > AB_DATA_MASK) {
		w->trunc = 1;
		return 1;
	}
	struct ab_event *e = bpf_map_lookup_elem(&ab_scratch, &zero);
	if (!e)
		return 1;
	const unsigned char *name = BPF_CORE_READ(d, d_name.name);
	long n = bpf_probe_read_kernel_str(&e->data[AB_BOUNDED(w->off)], AB_NAME_MAX, name);
	if (n <= 0) {
		w->trunc = 1;
		return 1;
	}
	w->off += n;
	w->dentry = (__u64)parent;
	return 0;
}

/* ab_walk_run walks from dentry (on mount mnt) up to the root (rootd,
 * rootm) with ab_walk_step, writing names from off on; the caller reads
 * the outcome from w (off, done, trunc). */
static __always_inline void ab_walk_run(struct ab_walk *w, __u64 dentry, __u64 mnt, __u64 rootd,
					__u64 rootm, __u32 off)
{
	w->dentry = dentry;
	w->vfsmnt = mnt;
	w->mntroot = (__u64)BPF_CORE_READ((struct vfsmount *)mnt, mnt_root);
	w->rootd = rootd;
	w->rootm = rootm;
	w->off = off;
	w->start = off;
	w->done = 0;
	w->trunc = 0;
	w->reached = 0;
	bpf_loop(AB_WALK_MAX, ab_walk_step, NULL, 0);
}

/* ab_walk_dir writes the names of (dentry, mnt) up to the root at *off and
 * returns the number of bytes written; it sets AB_INFO_TRUNC on overflow. */
static __always_inline __u32 ab_walk_dir(struct ab_event *e, __u32 off, __u64 dentry, __u64 mnt,
					 __u64 rootd, __u64 rootm)
{
	__u32 zero = 0;
	struct ab_walk *w = bpf_map_lookup_elem(&ab_walkstate, &zero);
	if (!w)
		return 0;
	ab_walk_run(w, dentry, mnt, rootd, rootm, off);
	if (w->trunc || !w->done)
		e->info |= AB_INFO_TRUNC;
	return w->off - off;
}

/* ab_real writes, at off, the real path of file f (its names from the
 * file up to the task's root (rootd, rootm), as ab_walk_dir does) and its
 * identity (dev, ino), and returns the bytes written. A file that is not
 * below the root (an anonymous file such as a memfd or a pipe, or one of
 * another mount namespace) gets AB_INFO_UNREACH and no path; one whose
 * path did not fit, AB_INFO_RTRUNC; an unlinked one, AB_INFO_DELETED. A
 * global function: the verifier checks it once. */
__noinline __u32 ab_real(struct ab_event *e, __u32 off, __u64 file, __u64 rootd, __u64 rootm)
{
	struct file *f = (void *)file;
	if (!e || !f)
		return 0;
	struct dentry *d = BPF_CORE_READ(f, f_path.dentry);
	struct vfsmount *m = BPF_CORE_READ(f, f_path.mnt);
	struct inode *ino = BPF_CORE_READ(f, f_inode);
	if (!d || !m || !ino)
		return 0;
	e->ino = BPF_CORE_READ(ino, i_ino);
	e->dev = BPF_CORE_READ(ino, i_sb, s_dev);
	e->info |= AB_INFO_REAL;
	if (BPF_CORE_READ(ino, __i_nlink) == 0 ||
	    (d != BPF_CORE_READ(d, d_parent) && !BPF_CORE_READ(d, d_hash.pprev)))
		e->info |= AB_INFO_DELETED;
	__u32 zero = 0;
	struct ab_walk *w = bpf_map_lookup_elem(&ab_walkstate, &zero);
	if (!w || off > AB_DATA_MASK) {
		e->info |= AB_INFO_RTRUNC;
		return 0;
	}
	ab_walk_run(w, (__u64)d, (__u64)m, rootd, rootm, off);
	if (w->trunc || !w->done) {
		e->info |= AB_INFO_RTRUNC;
		return 0;
	}
	if (!w->reached) {
		e->info |= AB_INFO_UNREACH;
		return 0;
	}
	return w->off - off;
}

/* ab_interp writes, at off, the real path of file (an exec's interpreter)
 * as ab_real does, without its identity; one that cannot be named (too
 * long, not below the root) gets AB_INFO_ITRUNC and no path. A global
 * function: the verifier checks it once. */
__noinline __u32 ab_interp(struct ab_event *e, __u32 off, __u64 file, __u64 rootd, __u64 rootm)
{
	struct file *f = (void *)file;
	if (!e)
		return 0;
	__u32 zero = 0;
	struct ab_walk *w = bpf_map_lookup_elem(&ab_walkstate, &zero);
	struct dentry *d = BPF_CORE_READ(f, f_path.dentry);
	struct vfsmount *m = BPF_CORE_READ(f, f_path.mnt);
	if (!f || !d || !m || !w || off > AB_DATA_MASK) {
		e->info |= AB_INFO_ITRUNC;
		return 0;
	}
	ab_walk_run(w, (__u64)d, (__u64)m, rootd, rootm, off);
	if (w->trunc || !w->done || !w->reached) {
		e->info |= AB_INFO_ITRUNC;
		return 0;
	}
	return w->off - off;
}

#endif
