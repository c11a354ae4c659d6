package watch_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"vaultmcp/shared/watch"
)

func Example() {
	dir, err := os.MkdirTemp("", "vault")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	w, err := watch.New(dir, watch.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := make(chan watch.Change)
	go func() {
		if err := w.Run(ctx, changes); err != nil {
			log.Print(err)
		}
	}()

	// Three saves in a row come out as one change, half a second after the last.
	for _, text := range []string{"# Idea", "# Idea\n\nA", "# Idea\n\nA plan."} {
		if err := os.WriteFile(filepath.Join(dir, "Idea.md"), []byte(text), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println(<-changes)
	// Output: updated Idea.md
}
