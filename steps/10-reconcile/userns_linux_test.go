package main

import (
	"os"
	"syscall"
)

// userNamespace starts a child process in a user namespace of its own, as root there, which
// may then set the namespace's own limits (/proc/sys/user) without touching the machine's.
func userNamespace() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
}
