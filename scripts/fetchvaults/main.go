// Command fetchvaults downloads the real vaults that some tests and benchmarks read: public
// Obsidian vaults written by other people, each at a pinned commit, so every reader tests
// against the same notes. They are not copied into this repository because they are not ours;
// their licences come with them.
//
//	go run ./scripts/fetchvaults          (make vaults) fills ../shared/vaults beside the checkout
//
// A vault already there is left alone: delete its folder to fetch it again. Without the
// internet it fails, naming the address it could not reach, and leaves nothing behind.
package main

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"strings"

	"vaultmcp/scripts/transcript"
	"vaultmcp/shared/testvaults"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fetchvaults:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet(args[0], flag.ContinueOnError)
	into := flags.String("into", "", "the folder to fill (default: ../shared/vaults beside the checkout)")
	from := flags.String("from", "https://github.com", "where the repositories' archives are served")
	if err := flags.Parse(args[1:]); err != nil {
		return err
	}
	if *into == "" {
		root, err := transcript.Root()
		if err != nil {
			return err
		}
		*into = filepath.Join(filepath.Dir(root), "shared", "vaults")
	}
	var missing []testvaults.Source
	for _, src := range testvaults.Sources {
		dest := filepath.Join(*into, src.Name)
		if testvaults.Present(dest) == nil {
			fmt.Fprintf(stdout, "%s: already in %s (delete it to fetch again)\n", src.Name, dest)
			continue
		}
		missing = append(missing, src)
	}
	if len(missing) == 0 {
		return nil
	}

	// Every vault is fetched into a temporary folder first, and moved into place only when all
	// of them arrived: a fetch that fails, offline or half-way, leaves nothing behind, not even
	// an empty ../shared/vaults that tests would take for the vaults. The temporary folder is
	// beside the first folder on the way to `into` that exists, so the moves stay on one disk.
	staging, err := os.MkdirTemp(existingParent(*into), ".vaults-fetch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(staging)
	for _, src := range missing {
		url := fmt.Sprintf("%s/%s/archive/%s.tar.gz", *from, src.Repo, src.Commit)
		fmt.Fprintf(stdout, "%s: fetching %s\n", src.Name, url)
		n, err := fetch(ctx, url, src, filepath.Join(staging, src.Name))
		if err != nil {
			return fmt.Errorf("%s: %w\nnothing was written to %s", src.Name, err, *into)
		}
		fmt.Fprintf(stdout, "%s: %d files\n", src.Name, n)
	}
	if err := os.MkdirAll(*into, 0o755); err != nil {
		return err
	}
	for _, src := range missing {
		dest := filepath.Join(*into, src.Name)
		os.Remove(dest) // an empty folder left by an older fetch; a full one stays, and Rename fails
		if err := os.Rename(filepath.Join(staging, src.Name), dest); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: in %s\n", src.Name, dest)
	}
	return nil
}

// existingParent returns the nearest folder above path that exists.
func existingParent(path string) string {
	dir := filepath.Dir(path)
	for {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

// maxSize bounds what one archive may unpack to: the three vaults are a few MB of text.
const maxSize = 256 << 20

// fetch downloads the archive at url and unpacks the files src keeps into dest, a new folder.
func fetch(ctx context.Context, url string, src testvaults.Source, dest string) (files int, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var uerr *neturl.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL comes first below, once
		}
		return 0, fmt.Errorf("could not reach %s: %w (make vaults needs the internet)", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	gz, err := gzip.NewReader(resp.Body)
	if err != nil {
		return 0, fmt.Errorf("%s is not a gzip archive: %w", url, err)
	}

	if err := os.Mkdir(dest, 0o755); err != nil {
		return 0, err
	}
	// os.Root keeps every write inside dest, whatever names the archive holds.
	root, err := os.OpenRoot(dest)
	if err != nil {
		return 0, err
	}
	defer root.Close()

	licences, size := 0, int64(0)
	archive := tar.NewReader(io.LimitReader(gz, maxSize))
	for {
		h, err := archive.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("reading %s: %w", url, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue // folders are made as files need them; links are not followed
		}
		// GitHub's archives hold everything under one folder named for the repository and commit.
		_, name, ok := strings.Cut(h.Name, "/")
		if !ok {
			continue
		}
		to, licence := kept(src.Keep, name)
		if to == "" {
			continue
		}
		if size += h.Size; size > maxSize {
			return 0, fmt.Errorf("%s unpacks to more than %d MB", url, maxSize>>20)
		}
		if err := write(root, to, archive); err != nil {
			return 0, err
		}
		files++
		if licence {
			licences++
		}
	}
	if licences == 0 {
		return 0, fmt.Errorf("%s has no LICENSE file at its top; its notes are not kept without one", url)
	}
	return files, nil
}

// kept returns where a file of the repository goes in the vault, or "" if it is not kept.
// Hidden folders (.obsidian, .github) hold settings, not notes.
func kept(keep []testvaults.Keep, name string) (to string, licence bool) {
	if !filepath.IsLocal(name) || strings.HasPrefix(name, ".") || strings.Contains(name, "/.") {
		return "", false
	}
	if !strings.Contains(name, "/") && strings.HasPrefix(strings.ToUpper(name), "LICENSE") {
		return name, true
	}
	for _, k := range keep {
		rest, ok := strings.CutPrefix(name, k.From)
		if k.From != "" && (!ok || (rest != "" && rest[0] != '/')) {
			continue
		}
		if strings.HasSuffix(name, k.Ext) {
			return strings.TrimPrefix(path.Join(k.To, rest), "/"), false
		}
	}
	return "", false
}

func write(root *os.Root, name string, r io.Reader) error {
	if err := root.MkdirAll(path.Dir(name), 0o755); err != nil {
		return err
	}
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
