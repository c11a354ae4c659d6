package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"vaultmcp/scripts/transcript"
)

// archive builds a .tar.gz shaped like GitHub's: every file under one top folder. The notes
// are made up here; the real vaults are never copied into the repository.
func archive(t *testing.T, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range files {
		body := "made up: " + name
		if err := tw.WriteHeader(&tar.Header{Name: "repo-0123abc/" + name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// serve answers every archive request with body, and counts the requests.
func serve(t *testing.T, body []byte) (url string, requests *int) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		if !strings.HasSuffix(r.URL.Path, ".tar.gz") || !strings.Contains(r.URL.Path, "/archive/") {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &n
}

func filesIn(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, filepath.ToSlash(rel))
		}
		return err
	})
	slices.Sort(names)
	return names
}

func TestFetchKeepsNotesAndLicence(t *testing.T) {
	url, requests := serve(t, archive(t,
		"LICENSE", "Index.md", "Concepts/Data Lake.md", "Assets/logo.png",
		".obsidian/workspace.md", ".github/PULL_REQUEST_TEMPLATE.md",
		"resources/sample_vaults/Tasks-Demo/Test Data/callout.md",
		"tests/Obsidian/__test_data__/callout.json", "tests/Obsidian/other.json",
		"../outside.md"))
	into := t.TempDir()
	var out bytes.Buffer
	if err := run(t.Context(), []string{"fetchvaults", "-from", url, "-into", into}, &out); err != nil {
		t.Fatal(err)
	}
	for vault, want := range map[string][]string{
		"data-engineering-wiki": {"Concepts/Data Lake.md", "Index.md", "LICENSE", "resources/sample_vaults/Tasks-Demo/Test Data/callout.md"},
		"tasks-test-data":       {"LICENSE", "notes/callout.md", "obsidian-metadata/callout.json"},
	} {
		if got := filesIn(t, filepath.Join(into, vault)); !slices.Equal(got, want) {
			t.Errorf("%s holds %q; want %q", vault, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(into), "outside.md")); err == nil {
		t.Error("a name climbing out of the archive was written outside the vault")
	}

	// A second run fetches nothing: each vault is already there.
	before := *requests
	out.Reset()
	if err := run(t.Context(), []string{"fetchvaults", "-from", url, "-into", into}, &out); err != nil {
		t.Fatal(err)
	}
	if *requests != before || strings.Count(out.String(), "already in") != 3 {
		t.Errorf("a second run made %d requests and said:\n%s", *requests-before, out.String())
	}
}

func TestFetchRefusesNotesWithoutALicence(t *testing.T) {
	url, _ := serve(t, archive(t, "Index.md"))
	into := t.TempDir()
	err := run(t.Context(), []string{"fetchvaults", "-from", url, "-into", into}, new(bytes.Buffer))
	if err == nil || !strings.Contains(err.Error(), "no LICENSE") {
		t.Fatalf("err = %v; want a refusal naming the missing licence", err)
	}
	if names := filesIn(t, into); len(names) != 0 {
		t.Errorf("a refused fetch left %q behind", names)
	}
}

func TestFetchReportsAMissingArchive(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	err := run(t.Context(), []string{"fetchvaults", "-from", srv.URL, "-into", t.TempDir()}, new(bytes.Buffer))
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("err = %v; want the 404", err)
	}
}

// entries lists what dir holds, hidden names included.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	return names
}

// unreachable returns the URL of a port that was listening a moment ago and no longer is.
func unreachable(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	return url
}

// Offline, the fetch fails naming what it could not reach, and writes nothing: no vault, no
// ../shared/vaults, no temporary folder.
func TestFetchOfflineLeavesNothing(t *testing.T) {
	beside := t.TempDir()
	into := filepath.Join(beside, "shared", "vaults")
	from := unreachable(t)
	err := run(t.Context(), []string{"fetchvaults", "-from", from, "-into", into}, new(bytes.Buffer))
	if err == nil || !strings.Contains(err.Error(), "could not reach "+from+"/") || !strings.Contains(err.Error(), "needs the internet") {
		t.Fatalf("err = %v; want one naming %s and saying the internet is needed", err, from)
	}
	if names := entries(t, beside); len(names) != 0 {
		t.Errorf("an offline fetch left %q behind", names)
	}
}

// A fetch that fails after some vaults arrived keeps none of them: a vault is in place only
// when the whole set is.
func TestFetchFailingHalfWayLeavesNothing(t *testing.T) {
	good := archive(t, "LICENSE", "Index.md")
	for _, fail := range []struct {
		name  string
		serve func(w http.ResponseWriter)
	}{
		{"an error", func(w http.ResponseWriter) { http.Error(w, "busy", http.StatusServiceUnavailable) }},
		{"a cut archive", func(w http.ResponseWriter) { w.Write(good[:len(good)/2]) }},
	} {
		t.Run(fail.name, func(t *testing.T) {
			n := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if n++; n == 1 {
					w.Write(good)
					return
				}
				fail.serve(w)
			}))
			defer srv.Close()
			beside := t.TempDir()
			into := filepath.Join(beside, "vaults")
			var out bytes.Buffer
			err := run(t.Context(), []string{"fetchvaults", "-from", srv.URL, "-into", into}, &out)
			if err == nil || !strings.Contains(err.Error(), "nothing was written to "+into) {
				t.Fatalf("err = %v; want one saying nothing was written", err)
			}
			if !strings.Contains(out.String(), "data-engineering-wiki: 2 files") {
				t.Errorf("the first vault did not arrive, so the test proves nothing:\n%s", out.String())
			}
			if names := entries(t, beside); len(names) != 0 {
				t.Errorf("a failed fetch left %q behind", names)
			}
		})
	}
}

// An empty folder where a vault goes, as an older fetch could leave, is no vault: it is
// fetched.
func TestFetchFillsEmptyFolders(t *testing.T) {
	url, _ := serve(t, archive(t, "LICENSE", "Index.md"))
	into := t.TempDir()
	if err := os.Mkdir(filepath.Join(into, "obsidian-garden"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(t.Context(), []string{"fetchvaults", "-from", url, "-into", into}, &out); err != nil {
		t.Fatal(err)
	}
	if got := filesIn(t, filepath.Join(into, "obsidian-garden")); !slices.Equal(got, []string{"Index.md", "LICENSE"}) {
		t.Errorf("obsidian-garden holds %q\n%s", got, out.String())
	}
	if got := entries(t, into); !slices.Equal(got, []string{"data-engineering-wiki", "obsidian-garden", "tasks-test-data"}) {
		t.Errorf("%s holds %q", into, got)
	}
}

// TestMakeVaultsOffline runs the command as the reader does, with make vaults: offline it
// fails, leaves nothing behind, and its own message is the last line before make's, with no
// "exit status 1" from go run after it.
func TestMakeVaultsOffline(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	beside := t.TempDir()
	into := filepath.Join(beside, "shared", "vaults")
	from := unreachable(t)
	cmd := exec.Command("make", "--no-print-directory", "vaults", "FLAGS=-from "+from+" -into "+into)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out // one pipe, so the lines keep their order
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("make vaults: %v; want a non-zero exit\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "could not reach "+from) {
		t.Errorf("make vaults does not name %s:\n%s", from, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	makes := slices.IndexFunc(lines, regexp.MustCompile(`^make(\[\d+\])?: \*\*\*`).MatchString)
	if last := "nothing was written to " + into; makes < 1 || lines[makes-1] != last {
		t.Errorf("the line before make's error is not the last of fetchvaults' message, %q:\n%s", last, out.String())
	}
	if names := entries(t, beside); len(names) != 0 {
		t.Errorf("left %q behind", names)
	}
}
