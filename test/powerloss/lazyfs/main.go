// lazyfs: a FUSE file system that loses, on a simulated power cut, every
// write that was not fsynced. It serves the folder --backing at --mount:
// reads see everything written (the live state), but the backing folder,
// which stands for the disk, only receives what an fsync forced:
//
//   - file data and size: a file's unsynced pages are kept in memory and
//     written back by fsync/fdatasync of that file;
//   - directory entries and attributes (create, mkdir, rename, unlink, rmdir,
//     chmod, chown): kept in an in-memory log and applied in order, up to
//     the last change a directory fsync (its entries) or a file fsync (its
//     creation and attributes) needs. A journaling file system keeps
//     metadata in order the same way.
//
// Control, by one-line commands on the unix socket --control (one command a
// connection, one line back):
//
//	stats  "pending-ops N dirty-files N dirty-bytes N"
//	sync   force everything to the backing folder (like sync(1)); "ok"
//	cut    power cut: drop the volatile layer, answer "cut" and the stats
//	       of what was dropped, unmount and exit
//	fail-fsync SUFFIX N
//	       the next N fsyncs of files whose path ends with SUFFIX fail with
//	       EIO and lose the file's unsynced pages, as on Linux (fault.go); "ok"
//	faults "failed-fsyncs N lost-bytes N"
//
// SIGUSR1 is a power cut too. SIGTERM/SIGINT shut down cleanly (unmount,
// then sync). "ready" is printed on stdout once the mount serves.
//
// mmap (SQLite's -shm) goes through the kernel's page cache, which is kept
// across opens (every change comes through this mount, so it never goes
// stale); pages the kernel writes back are volatile like any write. That is
// right for -shm: after a crash SQLite rebuilds it from the WAL.
//
// Not modelled: torn or partly written-back pages (a cut drops every unsynced
// byte of a file, never half of them), hard links, symlinks, special files.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

func main() {
	backing := flag.String("backing", "", "folder that stands for the disk")
	mount := flag.String("mount", "", "where to mount")
	control := flag.String("control", "", "unix socket for stats/sync/cut")
	debug := flag.Bool("debug", false, "log every FUSE request")
	flag.Parse()
	if *backing == "" || *mount == "" {
		fmt.Fprintln(os.Stderr, "usage: lazyfs --backing DIR --mount DIR [--control SOCKET]")
		os.Exit(2)
	}
	root, err := filepath.Abs(*backing)
	check(err)
	var st syscall.Stat_t
	check(syscall.Stat(root, &st))

	l := &lazyFS{backingRoot: root, nextIno: 1, dirty: map[*node]bool{}}
	l.root = &node{lfs: l, ino: 1, dir: true, mode: st.Mode & 0o7777, uid: st.Uid, gid: st.Gid,
		durable: true, pages: map[int64][]byte{}, lost: map[int64]bool{}}
	l.root.mtime = time.Unix(st.Mtim.Unix())
	l.root.atime, l.root.ctime = l.root.mtime, l.root.mtime

	timeout := time.Second
	server, err := fs.Mount(*mount, l.root, &fs.Options{
		EntryTimeout: &timeout,
		AttrTimeout:  &timeout,
		MountOptions: fuse.MountOptions{
			// PostgreSQL runs as its own user; the daemon as root.
			AllowOther:    os.Geteuid() == 0,
			FsName:        "lazyfs:" + root,
			Name:          "lazyfs",
			DisableXAttrs: true,
			Debug:         *debug,
		},
	})
	check(err)

	if *control != "" {
		_ = os.Remove(*control)
		ln, err := net.Listen("unix", *control)
		check(err)
		go serveControl(l, ln, server, *mount)
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGUSR1, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		for sig := range signals {
			if sig == syscall.SIGUSR1 {
				fmt.Fprintf(os.Stderr, "lazyfs: power cut: dropped %s\n", l.powerCut())
				unmount(server, *mount)
				os.Exit(0)
			}
			unmount(server, *mount)
		}
	}()
	fmt.Println("ready")
	server.Wait()
	// Unmounted. Unless the power was cut, this is a clean shutdown: the
	// kernel has written back its dirty mmap pages to us while unmounting,
	// and everything now goes to the backing folder.
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.cut {
		if errno := l.syncAll(); errno != 0 {
			fmt.Fprintf(os.Stderr, "lazyfs: sync at shutdown failed: %v\n", errno)
			os.Exit(1)
		}
	}
}

func serveControl(l *lazyFS, ln net.Listener, server *fuse.Server, mount string) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		line, _ := bufio.NewReader(conn).ReadString('\n')
		words := strings.Fields(line)
		if len(words) == 0 {
			words = []string{""}
		}
		switch words[0] {
		case "fail-fsync":
			l.mu.Lock()
			fmt.Fprintln(conn, l.addFault(words[1:]))
			l.mu.Unlock()
		case "faults":
			l.mu.Lock()
			fmt.Fprintln(conn, l.faultStats())
			l.mu.Unlock()
		case "stats":
			l.mu.Lock()
			fmt.Fprintln(conn, l.stats())
			l.mu.Unlock()
		case "sync":
			l.mu.Lock()
			errno := l.syncAll()
			l.mu.Unlock()
			if errno != 0 {
				fmt.Fprintf(conn, "error %v\n", errno)
			} else {
				fmt.Fprintln(conn, "ok")
			}
		case "cut":
			fmt.Fprintf(conn, "cut %s\n", l.powerCut())
			conn.Close()
			unmount(server, mount)
			os.Exit(0)
		default:
			fmt.Fprintln(conn, "error unknown command")
		}
		conn.Close()
	}
}

// powerCut stops the file system dead: from now on every request fails and
// nothing more reaches the backing folder. What was not written back is
// simply never written.
func (l *lazyFS) powerCut() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cut = true
	return l.stats()
}

func (l *lazyFS) stats() string {
	var bytes int64
	for n := range l.dirty {
		bytes += n.dirtyBytes()
	}
	return fmt.Sprintf("pending-ops %d dirty-files %d dirty-bytes %d", len(l.log), len(l.dirty), bytes)
}

func (l *lazyFS) syncAll() syscall.Errno {
	if errno := l.flushTo(l.seq); errno != 0 {
		return errno
	}
	for n := range l.dirty {
		if errno := l.syncFile(n); errno != 0 {
			return errno
		}
	}
	return 0
}

// unmount unmounts while still answering the kernel (with EIO after a cut):
// it writes back dirty mmap pages on unmount and needs replies. server.Wait
// in main returns once it is done.
func unmount(server *fuse.Server, mount string) {
	if err := server.Unmount(); err != nil {
		fmt.Fprintf(os.Stderr, "lazyfs: unmount: %v; detaching lazily\n", err)
		if out, err := exec.Command("fusermount3", "-u", "-z", mount).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "lazyfs: fusermount3 -u -z: %v: %s\n", err, out)
		}
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "lazyfs: %v\n", err)
		os.Exit(1)
	}
}
