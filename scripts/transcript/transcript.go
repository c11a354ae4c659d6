// Package transcript reads and runs the curl transcripts that check every step.
//
// A transcript is a terminal session written down: what the reader types and what they must
// see. It is plain text, one section per behaviour:
//
//	## tools/call: an unknown tool is a protocol error
//	$ curl -s $MCP -H 'Content-Type: application/json' \
//	    -d '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}'
//	{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"<string>"}}
//
// Lines starting with "$ " are commands (a trailing backslash continues them); the lines after
// a command, up to the next command or section, are its expected output. Lines starting with
// "#" before the first section are comments (one starting "# retires: " names a section of the
// step before that this step no longer shows); inside a section, "# retry for up to 10s" just
// before a command makes it run again until its output matches, and "# http only: why" keeps
// the command from the run over stdio, whose answer differs for the reason given. Expected output is compared as
// JSON where it is JSON (see Match), so it may be laid out over several lines to be read. One
// blank line, never more, comes before each section. The same file is run by `make check-step N`
// against the reader's server, by `go test` against a fresh one, and shown in the guide.
package transcript

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"
)

// Section is one titled behaviour: one or more commands with their expected output.
type Section struct {
	Title    string
	Line     int // where the section starts in its file, for error messages
	Commands []Command
	Text     string // the section exactly as written, for the guide
}

// Command is a shell command (usually curl) and the output it must print.
type Command struct {
	Shell    string // as written, continuation lines included
	Expected string
	// Retry is how long to keep running the command until it prints what is expected, for
	// a change the server makes in the background (a file watcher). Zero runs it once.
	// A transcript asks for it with a line "# retry for up to 10s" before the command.
	Retry time.Duration
	// HTTPOnly says why the command's answer over stdio is not the one shown, which makes its
	// section one the run over stdio skips, and says so. A transcript gives it with a line
	// "# http only: why" before the command.
	HTTPOnly string
}

var (
	retryLine    = regexp.MustCompile(`^# retry for up to (\S+)$`)
	httpOnlyLine = regexp.MustCompile(`^# http only: (.+)$`)
)

// ParseFile reads a transcript file.
func ParseFile(name string) ([]Section, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sections, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return sections, nil
}

// Parse reads a transcript.
func Parse(r io.Reader) ([]Section, error) {
	var (
		sections []Section
		text     []string      // lines of the current section
		inShell  bool          // the previous line ended with a backslash
		retry    time.Duration // from a "# retry" line, for the next command
		httpOnly string        // from a "# http only" line, for the next command
		lineNo   int
		blanks   int // blank lines just before this one
	)
	current := func() *Section { return &sections[len(sections)-1] }
	finish := func() {
		if len(sections) > 0 {
			s := current()
			for i := range s.Commands {
				s.Commands[i].Expected = strings.TrimRight(s.Commands[i].Expected, "\n")
			}
			s.Text = strings.TrimRight(strings.Join(text, "\n"), "\n")
		}
	}
	titles := map[string]int{}
	scanner := bufio.NewScanner(r)
	scanner.Buffer(nil, 1<<20)
	for scanner.Scan() {
		lineNo++
		line := strings.TrimRight(scanner.Text(), "\r")
		if lineNo > 1 && strings.HasPrefix(line, "## ") && blanks != 1 {
			// One layout for every transcript, so that the diff between two steps' shows
			// only what changed.
			return nil, fmt.Errorf("line %d: put exactly one blank line before a section, not %d", lineNo, blanks)
		}
		if line == "" {
			blanks++
		} else {
			blanks = 0
		}
		switch {
		case strings.HasPrefix(line, "## "):
			finish()
			title := strings.TrimSpace(line[3:])
			if first, dup := titles[title]; dup {
				return nil, fmt.Errorf("line %d: section %q already starts on line %d; titles must be unique", lineNo, title, first)
			}
			titles[title] = lineNo
			sections = append(sections, Section{Title: title, Line: lineNo})
			text = []string{line}
			inShell = false
		case len(sections) == 0:
			if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#") {
				return nil, fmt.Errorf("line %d: text before the first \"## \" section must be a # comment", lineNo)
			}
		case inShell:
			cmd := &current().Commands[len(current().Commands)-1]
			cmd.Shell += "\n" + line
			inShell = strings.HasSuffix(line, `\`)
			text = append(text, line)
		case retryLine.MatchString(line):
			d, err := time.ParseDuration(retryLine.FindStringSubmatch(line)[1])
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("line %d: %q: the duration must be like 10s", lineNo, line)
			}
			retry = d
			text = append(text, line)
		case httpOnlyLine.MatchString(line):
			httpOnly = httpOnlyLine.FindStringSubmatch(line)[1]
			text = append(text, line)
		case strings.HasPrefix(line, "$ "):
			current().Commands = append(current().Commands, Command{Shell: line[2:], Retry: retry, HTTPOnly: httpOnly})
			retry, httpOnly = 0, ""
			inShell = strings.HasSuffix(line, `\`)
			text = append(text, line)
		default:
			s := current()
			if len(s.Commands) == 0 {
				if strings.TrimSpace(line) != "" {
					return nil, fmt.Errorf("line %d: section %q has output before its first $ command", lineNo, s.Title)
				}
				continue
			}
			s.Commands[len(s.Commands)-1].Expected += line + "\n"
			text = append(text, line)
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	if blanks > 0 {
		return nil, fmt.Errorf("line %d: the transcript ends with blank lines; end it with its last output", lineNo)
	}
	finish()
	for _, s := range sections {
		if len(s.Commands) == 0 {
			return nil, fmt.Errorf("line %d: section %q has no $ command", s.Line, s.Title)
		}
	}
	return sections, nil
}
