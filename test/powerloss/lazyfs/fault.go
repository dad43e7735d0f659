package main

import (
	"fmt"
	"strings"
	"syscall"
)

// Failed fsyncs, as Linux has them since 4.13 (the "fsyncgate" of 2018):
// when write-back of a file's dirty pages fails, the kernel reports EIO and
// marks those pages clean. They still read back (the page cache holds
// them), but no later fsync writes them, and a power cut loses them. The
// error is reported once to every open file description that was open
// when it happened (errseq_t): a description that has seen it gets success
// from its next fsync, although the data never reached the disk.
//
// The control command "fail-fsync SUFFIX N" makes the next N fsyncs of files
// whose path ends with SUFFIX fail that way.

// handle is one open file description: what write-back errors it has seen.
type handle struct {
	seen uint64
}

type fault struct {
	suffix string
	left   int
}

func (l *lazyFS) addFault(args []string) string {
	if len(args) != 2 {
		return "error usage: fail-fsync SUFFIX COUNT"
	}
	var count int
	if _, err := fmt.Sscanf(args[1], "%d", &count); err != nil || count < 1 {
		return "error COUNT must be a positive integer"
	}
	l.faults = append(l.faults, &fault{suffix: args[0], left: count})
	return "ok"
}

// takeFault reports whether this fsync of n is one that fails, and counts it.
func (l *lazyFS) takeFault(n *node) bool {
	if len(l.faults) == 0 {
		return false
	}
	path := n.Path(nil)
	for i, f := range l.faults {
		if !strings.HasSuffix(path, f.suffix) {
			continue
		}
		f.left--
		if f.left == 0 {
			l.faults = append(l.faults[:i], l.faults[i+1:]...)
		}
		return true
	}
	return false
}

// failWriteBack is a write-back that failed: the unsynced pages are marked
// clean but never written, and every open description will hear of it once.
func (n *node) failWriteBack() {
	for idx := range n.pages {
		n.lost[idx] = true
	}
	n.wbErr++
	n.lfs.failedFsyncs++
	n.lfs.lostBytes += int64(len(n.pages)) * pageSize
	delete(n.lfs.dirty, n)
}

// fsyncFile is fsync(2) of a regular file through handle h.
func (n *node) fsyncFile(h *handle) syscall.Errno {
	if n.lfs.takeFault(n) {
		n.failWriteBack()
		if h != nil {
			h.seen = n.wbErr
		}
		return syscall.EIO
	}
	if errno := n.lfs.syncFile(n); errno != 0 {
		return errno
	}
	if h != nil && h.seen < n.wbErr {
		h.seen = n.wbErr
		return syscall.EIO
	}
	return 0
}

func (l *lazyFS) faultStats() string {
	return fmt.Sprintf("failed-fsyncs %d lost-bytes %d", l.failedFsyncs, l.lostBytes)
}
