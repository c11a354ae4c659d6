// Command vaultgen writes a made-up Obsidian vault for benchmarks; the same seed writes the
// same vault, byte for byte (see package vaultgen):
//
//	go run ./scripts/vaultgen/cmd/vaultgen -notes 10000 -seed 1 -out /tmp/vault10k
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"vaultmcp/scripts/vaultgen"
)

func main() {
	if err := run(os.Args, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// run is the whole program; main only supplies the outside world.
func run(args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet(args[0], flag.ContinueOnError)
	flags.SetOutput(stderr)
	notes := flags.Int("notes", 1000, "how many notes to write")
	seed := flags.Int64("seed", 1, "the seed: the same seed writes the same vault")
	out := flags.String("out", "", "the `folder` to write the vault into; it must not exist or be empty")
	if err := flags.Parse(args[1:]); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("no -out folder given; say where to write the vault")
	}

	start := time.Now()
	s, err := vaultgen.Generate(*out, vaultgen.Options{Notes: *notes, Seed: *seed})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d notes in %d folders to %s in %v: %.1f MB (largest note %.1f MB), "+
		"%d with frontmatter, %d headings, %d tags, %d links (%d to missing notes)\n",
		s.Notes, s.Folders, *out, time.Since(start).Round(time.Millisecond), float64(s.Bytes)/1e6,
		float64(s.Largest)/1e6, s.Frontmatter, s.Headings, s.Tags, s.Links, s.MissingLinks)
	return nil
}
