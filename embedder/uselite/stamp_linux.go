package uselite

import (
	"os"
	"syscall"
)

// changeStamp is a file's inode and status-change time. Unlike the
// modification time, a program cannot set the change time, and a file
// replaced (a new model unpacked over the old) has a new inode: tar and npm
// restore the archive's modification times, and a retrained model of the
// same shape has weight files of the same sizes.
func changeStamp(fi os.FileInfo) (ino uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, st.Ctim.Nano()
	}
	return 0, 0
}
