package main

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// pageSize is the unit of the volatile data layer. Any size works; the
// kernel's page size keeps mmap write-back (SQLite's -shm) one page a write.
const pageSize = 4096

// A file's live content is its durable content (the backing file) with the
// unsynced changes laid over it:
//   - bytes at or past `low`, the smallest size the file had since its last
//     sync, no longer come from the backing file (a truncate cut them off);
//   - `pages` hold every page written (or cut by a truncate) since then;
//   - `size` is the live size.
// Invariants: low <= size; every byte of a page at or past size is zero.
// So reading is: zeros, then the backing file below low, then the pages.

// readAt fills dest with the live content from off and returns how many
// bytes the file has there (0 at or past the end).
func (n *node) readAt(dest []byte, off int64) (int, syscall.Errno) {
	if off >= n.size {
		return 0, 0
	}
	end := min(off+int64(len(dest)), n.size)
	buf := dest[:end-off]
	clear(buf)
	if off < n.low {
		if errno := n.readBacking(buf[:min(end, n.low)-off], off); errno != 0 {
			return 0, errno
		}
	}
	for idx := off / pageSize; idx*pageSize < end; idx++ {
		pg, ok := n.pages[idx]
		if !ok {
			continue
		}
		start := idx * pageSize
		from := max(start, off)
		to := min(start+pageSize, end)
		copy(buf[from-off:to-off], pg[from-start:to-start])
	}
	return len(buf), 0
}

// readBacking reads durable bytes; a short backing file reads as zeros.
func (n *node) readBacking(buf []byte, off int64) syscall.Errno {
	if err := n.lfs.ensureBacking(n); err != nil {
		return errnoOf(err)
	}
	if n.backing == nil {
		return 0
	}
	if _, err := n.backing.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return errnoOf(err)
	}
	return 0
}

// page returns page idx of the volatile layer, copying it in from the live
// content the first time it is touched.
func (n *node) page(idx int64) ([]byte, syscall.Errno) {
	if pg, ok := n.pages[idx]; ok {
		return pg, 0
	}
	pg := make([]byte, pageSize)
	start := idx * pageSize
	if start < n.low {
		if errno := n.readBacking(pg[:min(start+pageSize, n.low)-start], start); errno != 0 {
			return nil, errno
		}
	}
	n.pages[idx] = pg
	return pg, 0
}

func (n *node) writeAt(data []byte, off int64) syscall.Errno {
	end := off + int64(len(data))
	for idx := off / pageSize; idx*pageSize < end; idx++ {
		pg, errno := n.page(idx)
		if errno != 0 {
			return errno
		}
		start := idx * pageSize
		from := max(start, off)
		to := min(start+pageSize, end)
		copy(pg[from-start:to-start], data[from-off:to-off])
		delete(n.lost, idx) // dirty again: the next write-back writes it
	}
	n.size = max(n.size, end)
	n.lfs.dirty[n] = true
	return 0
}

func (n *node) truncate(size int64) syscall.Errno {
	if size < n.size {
		for idx := range n.pages {
			if idx*pageSize >= size {
				delete(n.pages, idx)
				delete(n.lost, idx)
			}
		}
		if cut := size % pageSize; cut != 0 {
			pg, errno := n.page(size / pageSize)
			if errno != 0 {
				return errno
			}
			clear(pg[cut:])
			delete(n.lost, size/pageSize)
		}
		n.low = min(n.low, size)
	}
	// Growing needs nothing: past the old size every page is zero and the
	// backing file is not read.
	n.size = size
	n.lfs.dirty[n] = true
	return 0
}

// writeBack makes the live content durable: cut the backing file to low,
// write the pages, set the size. The backing folder stands for the disk, so
// it is not fsynced itself: the simulated power cut drops only this layer.
func (n *node) writeBack() error {
	if n.backing == nil {
		return nil
	}
	st, err := n.backing.Stat()
	if err != nil {
		return err
	}
	if st.Size() > n.low {
		if err := n.backing.Truncate(n.low); err != nil {
			return err
		}
	}
	for idx, pg := range n.pages {
		start := idx * pageSize
		if start >= n.size || n.lost[idx] {
			continue
		}
		if _, err := n.backing.WriteAt(pg[:min(pageSize, n.size-start)], start); err != nil {
			return err
		}
	}
	if err := n.backing.Truncate(n.size); err != nil {
		return err
	}
	// Pages whose write-back failed stay readable and are never written.
	kept := map[int64][]byte{}
	for idx := range n.lost {
		kept[idx] = n.pages[idx]
	}
	n.pages = kept
	n.low = n.size
	delete(n.lfs.dirty, n)
	return nil
}

func (n *node) dirtyBytes() int64 {
	return int64(len(n.pages)-len(n.lost)) * pageSize
}

func errnoOf(err error) syscall.Errno {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return errnoOf(pe.Err)
	}
	return syscall.EIO
}
