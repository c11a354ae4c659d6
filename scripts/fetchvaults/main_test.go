package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
