//go:build simulate_kqueue

package watch

// Built with -tags simulate_kqueue, a Watcher counts its watches as kqueue takes them, a
// descriptor for every folder and for every file in one, on any system. The budget is then
// read from the descriptor limit, and spent as a Mac with a large vault spends it, while the
// events still come from the system's own API: the way to test a Mac's path on Linux.
func init() { filesTakeDescriptors = true }
