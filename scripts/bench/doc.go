// Package bench measures the tutorial's servers as whole programs: start-up time to the first
// answered request, cold and warm, and peak memory (read from Linux's rusage, so these
// benchmarks run on Linux only). `make bench` runs them with the package benchmarks, and
// BENCHMARKS.md records one run.
package bench
