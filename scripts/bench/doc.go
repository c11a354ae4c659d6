// Package bench measures the finished server, step 10, as a whole program over generated
// vaults (scripts/vaultgen) and the real ones in ../shared/vaults: parsing, indexing, the
// catch-up after a restart, start-up to the first answer, and peak memory (read from Linux's
// /proc, so those run on Linux only): of a whole vault, of one note by its shape and size, and
// of a hostile call. Each benchmark measures its lower bound in the same run
// and reports both. `make bench` runs them with the package benchmarks and writes
// BENCHMARKS.md (scripts/benchreport).
package bench
