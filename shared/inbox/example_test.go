package inbox_test

import (
	"fmt"
	"os"
	"path/filepath"

	"vaultmcp/shared/inbox"
	"vaultmcp/shared/vault"
)

func ExampleFileName() {
	for _, title := range []string{"Re: budget?", "../../etc/passwd", "con.txt", "Plan.md", "..."} {
		name, err := inbox.FileName(title)
		fmt.Printf("%q → %q %v\n", title, name, err)
	}
	// Output:
	// "Re: budget?" → "Re budget.md" <nil>
	// "../../etc/passwd" → "etc passwd.md" <nil>
	// "con.txt" → "con_.txt.md" <nil>
	// "Plan.md" → "Plan.md" <nil>
	// "..." → "" title "..." has no letters or digits to name a file with; send a title with letters or digits, like "Meeting notes"
}

func ExampleInbox_Create() {
	dir, _ := os.MkdirTemp("", "vault")
	defer os.RemoveAll(dir)
	v, _ := vault.Open(dir)
	defer v.Close()
	in, _ := inbox.Open(v, inbox.DefaultFolder)
	defer in.Close()

	note, _ := in.Create("Q3 budget", "---\nNumbers to check.\n", []string{"#finance", "2024-q3"})
	text, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(note)))
	fmt.Println(note)
	fmt.Print(string(text))

	_, err := in.Create("Q3 budget", "Overwrite it!", nil)
	fmt.Println(err)
	// Output:
	// Inbox/Q3 budget.md
	// ---
	// created_by: vaultmcp
	// tags:
	//   - finance
	//   - 2024-q3
	// ---
	// ---
	// Numbers to check.
	// a note named "Q3 budget.md" already exists in "Inbox"; choose another title
}
