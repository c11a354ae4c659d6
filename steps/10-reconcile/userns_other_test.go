//go:build !linux

package main

import "syscall"

// userNamespace: user namespaces, and inotify, are Linux's.
func userNamespace() *syscall.SysProcAttr { return nil }
