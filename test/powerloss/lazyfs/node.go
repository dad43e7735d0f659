package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// lazyFS is the whole file system. One lock for everything: it is a test
// tool, and a single order of events is what makes the model easy to trust.
type lazyFS struct {
	mu          sync.Mutex
	backingRoot string
	root        *node
	nextIno     uint64
	log         []*op
	seq         uint64
	dirty       map[*node]bool
	// After a power cut nothing more is served and nothing reaches the disk.
	cut bool
	// fault.go: fsyncs still to fail, and what failed ones lost
	faults       []*fault
	failedFsyncs int
	lostBytes    int64
}

// node is a file or a directory. Its place in the live tree is the
// library's Inode; dparent/dname is its place in the backing folder.
type node struct {
	fs.Inode
	lfs  *lazyFS
	ino  uint64
	dir  bool
	mode uint32 // permission bits
	uid  uint32
	gid  uint32

	atime, mtime, ctime time.Time

	durable bool
	dparent *node
	dname   string

	// files: see overlay.go
	size    int64
	low     int64
	pages   map[int64][]byte
	backing *os.File
	// pages whose write-back failed: read back, never written (fault.go)
	lost  map[int64]bool
	wbErr uint64

	// the last logged op that changed this inode / an entry of this directory
	inodeSeq uint64
	entrySeq uint64
}

var (
	_ fs.NodeOnAdder   = (*node)(nil)
	_ fs.NodeGetattrer = (*node)(nil)
	_ fs.NodeSetattrer = (*node)(nil)
	_ fs.NodeCreater   = (*node)(nil)
	_ fs.NodeMkdirer   = (*node)(nil)
	_ fs.NodeUnlinker  = (*node)(nil)
	_ fs.NodeRmdirer   = (*node)(nil)
	_ fs.NodeRenamer   = (*node)(nil)
	_ fs.NodeOpener    = (*node)(nil)
	_ fs.NodeReader    = (*node)(nil)
	_ fs.NodeWriter    = (*node)(nil)
	_ fs.NodeFsyncer   = (*node)(nil)
	_ fs.NodeAllocater = (*node)(nil)
	_ fs.NodeStatfser  = (*node)(nil)
)

func (l *lazyFS) newNode(dir bool, mode, uid, gid uint32) *node {
	l.nextIno++
	now := time.Now()
	return &node{lfs: l, ino: l.nextIno, dir: dir, mode: mode & 0o7777, uid: uid, gid: gid,
		atime: now, mtime: now, ctime: now, pages: map[int64][]byte{}, lost: map[int64]bool{}}
}

func (n *node) stable() fs.StableAttr {
	if n.dir {
		return fs.StableAttr{Mode: syscall.S_IFDIR, Ino: n.ino}
	}
	return fs.StableAttr{Mode: syscall.S_IFREG, Ino: n.ino}
}

// OnAdd (root only) loads the backing folder: at mount everything is durable.
func (n *node) OnAdd(ctx context.Context) {
	if n != n.lfs.root {
		return
	}
	if err := n.lfs.load(ctx, n, n.lfs.backingRoot); err != nil {
		fmt.Fprintf(os.Stderr, "lazyfs: loading %s: %v\n", n.lfs.backingRoot, err)
		os.Exit(1)
	}
}

func (l *lazyFS) load(ctx context.Context, parent *node, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			return err
		}
		kind := st.Mode & syscall.S_IFMT
		if kind != syscall.S_IFREG && kind != syscall.S_IFDIR {
			fmt.Fprintf(os.Stderr, "lazyfs: ignoring %s (neither a file nor a directory)\n", p)
			continue
		}
		c := l.newNode(kind == syscall.S_IFDIR, st.Mode, st.Uid, st.Gid)
		c.mtime = time.Unix(st.Mtim.Unix())
		c.setDurable(parent, e.Name())
		c.size, c.low = st.Size, st.Size
		parent.AddChild(e.Name(), parent.NewPersistentInode(ctx, c, c.stable()), false)
		if c.dir {
			if err := l.load(ctx, c, p); err != nil {
				return err
			}
		}
	}
	return nil
}

func (n *node) fill(out *fuse.Attr) {
	out.Ino = n.ino
	out.Mode = n.stable().Mode | n.mode
	out.Uid, out.Gid = n.uid, n.gid
	out.Nlink = 1
	if n.dir {
		out.Nlink = 2
		out.Size = 4096
	} else {
		out.Size = uint64(n.size)
	}
	out.Blksize = pageSize
	out.Blocks = (out.Size + 511) / 512
	out.SetTimes(&n.atime, &n.mtime, &n.ctime)
}

func (n *node) lock() (unlock func(), errno syscall.Errno) {
	n.lfs.mu.Lock()
	if n.lfs.cut {
		n.lfs.mu.Unlock()
		return nil, syscall.EIO
	}
	return n.lfs.mu.Unlock, 0
}

func caller(ctx context.Context) (uint32, uint32) {
	if c, ok := fuse.FromContext(ctx); ok {
		return c.Uid, c.Gid
	}
	return 0, 0
}

func (n *node) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	unlock, errno := n.lock()
	if errno != 0 {
		return errno
	}
	defer unlock()
	n.fill(&out.Attr)
	return 0
}

func (n *node) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	unlock, errno := n.lock()
	if errno != 0 {
		return errno
	}
	defer unlock()
	now := time.Now()
	if size, ok := in.GetSize(); ok {
		if n.dir {
			return syscall.EISDIR
		}
		if errno := n.truncate(int64(size)); errno != 0 {
			return errno
		}
		n.mtime = now
	}
	mode, modeOK := in.GetMode()
	uid, uidOK := in.GetUID()
	gid, gidOK := in.GetGID()
	if modeOK || uidOK || gidOK {
		if modeOK {
			n.mode = mode & 0o7777
		}
		if uidOK {
			n.uid = uid
		}
		if gidOK {
			n.gid = gid
		}
		n.ctime = now
		n.lfs.record(&op{kind: opAttr, node: n, mode: n.mode, uid: n.uid, gid: n.gid})
	}
	if t, ok := in.GetATime(); ok {
		n.atime = t
	}
	if t, ok := in.GetMTime(); ok {
		n.mtime = t
	}
	n.fill(&out.Attr)
	return 0
}

func (n *node) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	unlock, errno := n.lock()
	if errno != 0 {
		return nil, nil, 0, errno
	}
	defer unlock()
	if n.GetChild(name) != nil {
		return nil, nil, 0, syscall.EEXIST
	}
	uid, gid := caller(ctx)
	c := n.lfs.newNode(false, mode, uid, gid)
	n.lfs.record(&op{kind: opCreate, parent: n, name: name, node: c, mode: c.mode, uid: uid, gid: gid})
	n.mtime, n.ctime = c.mtime, c.mtime
	c.fill(&out.Attr)
	return n.NewPersistentInode(ctx, c, c.stable()), &handle{seen: c.wbErr}, fuse.FOPEN_KEEP_CACHE, 0
}

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	unlock, errno := n.lock()
	if errno != 0 {
		return nil, errno
	}
	defer unlock()
	if n.GetChild(name) != nil {
		return nil, syscall.EEXIST
	}
	uid, gid := caller(ctx)
	c := n.lfs.newNode(true, mode, uid, gid)
	n.lfs.record(&op{kind: opMkdir, parent: n, name: name, node: c, mode: c.mode, uid: uid, gid: gid})
	n.mtime, n.ctime = c.mtime, c.mtime
	c.fill(&out.Attr)
	return n.NewPersistentInode(ctx, c, c.stable()), 0
}

func (n *node) child(name string) *node {
	if c := n.GetChild(name); c != nil {
		return c.Operations().(*node)
	}
	return nil
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	return n.remove(name, false)
}

func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno {
	return n.remove(name, true)
}

func (n *node) remove(name string, dir bool) syscall.Errno {
	unlock, errno := n.lock()
	if errno != 0 {
		return errno
	}
	defer unlock()
	c := n.child(name)
	switch {
	case c == nil:
		return syscall.ENOENT
	case dir && !c.dir:
		return syscall.ENOTDIR
	case !dir && c.dir:
		return syscall.EISDIR
	case dir && len(c.Children()) > 0:
		return syscall.ENOTEMPTY
	}
	kind := opUnlink
	if dir {
		kind = opRmdir
	}
	n.lfs.record(&op{kind: kind, parent: n, name: name, node: c})
	n.mtime, n.ctime = time.Now(), time.Now()
	return 0
}

const renameNoReplace = 1

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	unlock, errno := n.lock()
	if errno != 0 {
		return errno
	}
	defer unlock()
	if flags&^renameNoReplace != 0 {
		return syscall.ENOTSUP // RENAME_EXCHANGE / WHITEOUT: neither SQLite nor PostgreSQL uses them
	}
	np := newParent.(*node)
	src := n.child(name)
	if src == nil {
		return syscall.ENOENT
	}
	victim := np.child(newName)
	if victim == src {
		return 0
	}
	if victim != nil {
		switch {
		case flags&renameNoReplace != 0:
			return syscall.EEXIST
		case victim.dir && !src.dir:
			return syscall.EISDIR
		case !victim.dir && src.dir:
			return syscall.ENOTDIR
		case victim.dir && len(victim.Children()) > 0:
			return syscall.ENOTEMPTY
		}
	}
	n.lfs.record(&op{kind: opRename, parent: n, name: name, node: src, newParent: np, newName: newName, victim: victim, noReplace: flags&renameNoReplace != 0})
	now := time.Now()
	n.mtime, np.mtime, src.ctime = now, now, now
	return 0
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	unlock, errno := n.lock()
	if errno != 0 {
		return nil, 0, errno
	}
	defer unlock()
	if flags&syscall.O_TRUNC != 0 {
		if errno := n.truncate(0); errno != 0 {
			return nil, 0, errno
		}
	}
	// Every change goes through this mount, so the kernel's page cache never
	// goes stale: keep it across opens (and mmap stays coherent).
	return &handle{seen: n.wbErr}, fuse.FOPEN_KEEP_CACHE, 0
}

func (n *node) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	unlock, errno := n.lock()
	if errno != 0 {
		return nil, errno
	}
	defer unlock()
	got, errno := n.readAt(dest, off)
	if errno != 0 {
		return nil, errno
	}
	return fuse.ReadResultData(dest[:got]), 0
}

func (n *node) Write(ctx context.Context, fh fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	unlock, errno := n.lock()
	if errno != 0 {
		return 0, errno
	}
	defer unlock()
	if errno := n.writeAt(data, off); errno != 0 {
		return 0, errno
	}
	n.mtime = time.Now()
	return uint32(len(data)), 0
}

const fallocKeepSize = 1

func (n *node) Allocate(ctx context.Context, fh fs.FileHandle, off uint64, size uint64, mode uint32) syscall.Errno {
	unlock, errno := n.lock()
	if errno != 0 {
		return errno
	}
	defer unlock()
	switch mode {
	case 0:
		if end := int64(off + size); end > n.size {
			return n.truncate(end)
		}
		return 0
	case fallocKeepSize:
		return 0
	}
	return syscall.EOPNOTSUPP
}

// Fsync of a file forces the log up to the last change of the file itself
// (its creation included, so its data has a home), then writes its data.
// Fsync of a directory forces the log up to the last change of its entries.
// fdatasync is treated as fsync. A file's fsync may be made to fail
// (fault.go).
func (n *node) Fsync(ctx context.Context, fh fs.FileHandle, flags uint32) syscall.Errno {
	unlock, errno := n.lock()
	if errno != 0 {
		return errno
	}
	defer unlock()
	if n.dir {
		return n.lfs.flushTo(max(n.entrySeq, n.inodeSeq))
	}
	h, _ := fh.(*handle)
	return n.fsyncFile(h)
}

func (l *lazyFS) syncFile(n *node) syscall.Errno {
	if errno := l.flushTo(n.inodeSeq); errno != 0 {
		return errno
	}
	if err := l.ensureBacking(n); err != nil {
		return errnoOf(err)
	}
	if n.backing == nil {
		// No durable name, now or ever: nothing can make this data durable.
		delete(l.dirty, n)
		return 0
	}
	if err := n.writeBack(); err != nil {
		fmt.Fprintf(os.Stderr, "lazyfs: writing back inode %d: %v\n", n.ino, err)
		return syscall.EIO
	}
	return 0
}

func (n *node) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	var st syscall.Statfs_t
	if err := syscall.Statfs(n.lfs.backingRoot, &st); err != nil {
		return errnoOf(err)
	}
	out.FromStatfsT(&st)
	return 0
}
