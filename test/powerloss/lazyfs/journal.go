package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Directory entries and inode attributes change first in memory (the
// library's inode tree is the live namespace) and are logged here, in order.
// The log is applied to the backing folder only as far as an fsync forces
// it, and always as a prefix: metadata reaches the disk in the order it was
// made, as in a journaling file system (ext4, XFS). A power cut drops the
// rest of the log.

type opKind int

const (
	opCreate opKind = iota
	opMkdir
	opUnlink
	opRmdir
	opRename
	opAttr
)

type op struct {
	seq    uint64
	kind   opKind
	parent *node
	name   string
	node   *node
	// rename only
	newParent *node
	newName   string
	victim    *node
	noReplace bool
	// create, mkdir, attr
	mode     uint32
	uid, gid uint32
}

func (l *lazyFS) record(o *op) {
	l.seq++
	o.seq = l.seq
	l.log = append(l.log, o)
	switch o.kind {
	case opCreate, opMkdir:
		o.parent.entrySeq = o.seq
		o.node.inodeSeq = o.seq
	case opUnlink, opRmdir:
		o.parent.entrySeq = o.seq
	case opRename:
		o.parent.entrySeq = o.seq
		o.newParent.entrySeq = o.seq
	case opAttr:
		o.node.inodeSeq = o.seq
	}
}

// flushTo applies the log up to and including op seq.
func (l *lazyFS) flushTo(seq uint64) syscall.Errno {
	for len(l.log) > 0 && l.log[0].seq <= seq {
		if err := l.apply(l.log[0]); err != nil {
			fmt.Fprintf(os.Stderr, "lazyfs: applying metadata op %d to the backing folder: %v\n", l.log[0].seq, err)
			return syscall.EIO
		}
		l.log[0] = nil
		l.log = l.log[1:]
	}
	return 0
}

// durablePath is where n lives in the backing folder now, if anywhere. It
// follows the applied prefix of the log, not the live tree.
func (l *lazyFS) durablePath(n *node) (string, bool) {
	if n == l.root {
		return l.backingRoot, true
	}
	if !n.durable {
		return "", false
	}
	parent, ok := l.durablePath(n.dparent)
	if !ok {
		return "", false
	}
	return filepath.Join(parent, n.dname), true
}

// ensureBacking opens the backing file of a file loaded from disk. Called
// before its durable name goes away, so its content stays readable.
func (l *lazyFS) ensureBacking(n *node) error {
	if n.backing != nil || n.dir {
		return nil
	}
	p, ok := l.durablePath(n)
	if !ok {
		return nil
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	n.backing = f
	return nil
}

func (l *lazyFS) entryPath(parent *node, name string) (string, error) {
	p, ok := l.durablePath(parent)
	if !ok {
		return "", fmt.Errorf("parent of %q has no durable path", name)
	}
	return filepath.Join(p, name), nil
}

func (l *lazyFS) apply(o *op) error {
	switch o.kind {
	case opCreate:
		p, err := l.entryPath(o.parent, o.name)
		if err != nil {
			return err
		}
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, os.FileMode(o.mode&0o777))
		if err != nil {
			return err
		}
		if err := setOwnerMode(p, o.uid, o.gid, o.mode); err != nil {
			f.Close()
			return err
		}
		o.node.backing = f
		o.node.setDurable(o.parent, o.name)
	case opMkdir:
		p, err := l.entryPath(o.parent, o.name)
		if err != nil {
			return err
		}
		if err := os.Mkdir(p, os.FileMode(o.mode&0o777)); err != nil {
			return err
		}
		if err := setOwnerMode(p, o.uid, o.gid, o.mode); err != nil {
			return err
		}
		o.node.setDurable(o.parent, o.name)
	case opUnlink, opRmdir:
		p, err := l.entryPath(o.parent, o.name)
		if err != nil {
			return err
		}
		if err := l.ensureBacking(o.node); err != nil {
			return err
		}
		if o.kind == opUnlink {
			err = syscall.Unlink(p)
		} else {
			err = syscall.Rmdir(p)
		}
		if err != nil {
			return err
		}
		o.node.durable = false
	case opRename:
		from, err := l.entryPath(o.parent, o.name)
		if err != nil {
			return err
		}
		to, err := l.entryPath(o.newParent, o.newName)
		if err != nil {
			return err
		}
		if o.victim != nil {
			if err := l.ensureBacking(o.victim); err != nil {
				return err
			}
		}
		// The live tree already checked RENAME_NOREPLACE; the backing folder
		// is replayed in the same order, so the target is free here too.
		if err := os.Rename(from, to); err != nil {
			return err
		}
		if o.victim != nil {
			o.victim.durable = false
		}
		o.node.setDurable(o.newParent, o.newName)
	case opAttr:
		p, ok := l.durablePath(o.node)
		if !ok {
			return nil
		}
		return setOwnerMode(p, o.uid, o.gid, o.mode)
	}
	return nil
}

func setOwnerMode(p string, uid, gid, mode uint32) error {
	if err := os.Lchown(p, int(uid), int(gid)); err != nil {
		return err
	}
	return syscall.Chmod(p, mode&0o7777)
}

func (n *node) setDurable(parent *node, name string) {
	n.durable = true
	n.dparent = parent
	n.dname = name
}
