package interop

import (
	"encoding/json"
	"fmt"
	"strings"
)

// excuses are the conformance checks that may come back other than SUCCESS: each by check id,
// with its reason, and with the condition under which the reason holds. The condition is
// checked against the step every time, so an excuse expires by itself: once a step declares
// resources, say, the caching checks on resources/list count again. An excuse no step needed
// fails TestConformance, so the list cannot rot. None excuses a check that fails only now and
// then: every scenario runs once, and passes.
var excuses = []excuse{
	// The stateless scenario probes a few requirements through diagnostic tools that only the
	// suite's reference server has; against any other server it marks them untestable.
	untestable("sep-2575-server-rejects-undeclared-capability", "test_missing_capability",
		"-32021 MissingRequiredClientCapability needs a tool that requires a client capability; no tool of ours does"),
	untestable("sep-2575-missing-capability-http-400", "test_missing_capability",
		"the HTTP 400 that goes with that -32021; same diagnostic tool"),
	untestable("sep-2575-http-server-no-independent-requests-on-stream", "test_streaming_elicitation",
		"needs a tool that elicits mid-call; ours never send the client a request"),
	untestable("sep-2575-server-no-log-without-loglevel", "test_logging_tool",
		"needs a tool that logs to the client; ours send no notifications/message"),

	// The caching page (specification/2026-07-28/server/utilities/caching) puts ttlMs and
	// cacheScope on the results of prompts/list and resources/*. A server that declares no
	// prompts or resources capability has no such results: it answers -32601 method not found
	// (HTTP 404), the answer server-stateless itself checks in
	// sep-2575-server-declares-prompts-in-discover.
	notOffered("caching", "sep-2549-prompts-list-caching-hints", "FAILURE", "prompts",
		"no prompts: prompts/list is -32601, a result with no hints to carry"),
	notOffered("caching", "sep-2549-resources-list-caching-hints", "FAILURE", "resources",
		"no resources: resources/list is -32601, a result with no hints to carry"),
	notOffered("caching", "sep-2549-resources-templates-list-caching-hints", "FAILURE", "resources",
		"no resources: resources/templates/list is -32601, a result with no hints to carry"),
	notOffered("caching", "sep-2549-resources-read-caching-hints", "SKIPPED", "resources",
		"the suite reads a resource that resources/list returned; with no resources it reads none"),

	// A server that does not declare listChanged never sends the list_changed notification;
	// the suite skips these itself ("did not declare ... listChanged capability").
	notOffered("server-stateless", "sep-2575-server-sends-prompts-list-changed-on-subscription", "SKIPPED", "prompts.listChanged",
		"without prompts.listChanged there is no notifications/prompts/list_changed to send"),
	notOffered("server-stateless", "sep-2575-server-sends-tools-list-changed-on-subscription", "SKIPPED", "tools.listChanged",
		"our tool list never changes while the server runs, so it declares no tools.listChanged"),

	// A server with nothing to announce may answer subscriptions/listen with -32601 (step 1,
	// which has no streams at all): the suite then calls the listen checks not applicable.
	nothingToListenFor("sep-2575-server-sends-subscription-ack"),
	nothingToListenFor("sep-2575-server-tags-subscription-id"),
	nothingToListenFor("sep-2575-server-honors-notification-filter"),
}

// excuse lets one check come back with one status other than SUCCESS.
type excuse struct {
	revision, scenario, id string
	status                 string // FAILURE or SKIPPED
	why                    string
	// while returns nil while the excuse applies to the step and the check, else what is
	// true instead.
	while func(s *stepServer, c conformanceCheck) error
}

func (e excuse) key() string { return e.revision + " " + e.scenario + " " + e.id }

func findExcuse(revision, scenario string, c conformanceCheck) *excuse {
	for i, e := range excuses {
		if e.revision == revision && e.scenario == scenario && e.id == c.ID && e.status == c.Status {
			return &excuses[i]
		}
	}
	return nil
}

// untestable excuses a server-stateless check the suite could not run for want of one of its
// diagnostic tools, and only that: a check untestable for another reason still fails.
func untestable(id, tool, why string) excuse {
	return excuse{revision: "2026-07-28", scenario: "server-stateless", id: id, status: "FAILURE", why: why,
		while: func(_ *stepServer, c conformanceCheck) error {
			var d struct{ Untestable bool }
			json.Unmarshal(c.Details, &d)
			if !d.Untestable || !strings.Contains(c.ErrorMessage, tool) {
				return fmt.Errorf("the suite says it could not test this for want of %s; it says %q", tool, c.ErrorMessage)
			}
			return nil
		}}
}

// notOffered excuses a check on a feature while server/discover does not declare it:
// "resources", or a flag such as "tools.listChanged". A FAILURE is excused only when the
// server's answer was the one the spec asks for, -32601 method not found.
func notOffered(scenario, id, status, feature, why string) excuse {
	return excuse{revision: "2026-07-28", scenario: scenario, id: id, status: status, why: why,
		while: func(s *stepServer, c conformanceCheck) error {
			if err := s.lacks(feature); err != nil {
				return err
			}
			if status != "FAILURE" {
				return nil
			}
			var d struct{ Error struct{ Code int } }
			json.Unmarshal(c.Details, &d)
			if d.Error.Code != -32601 {
				return fmt.Errorf("the server answers -32601 method not found; it answered %d", d.Error.Code)
			}
			return nil
		}}
}

// nothingToListenFor excuses a listen-stream check the suite skipped because the server
// declares nothing a subscription could deliver, and says so.
func nothingToListenFor(id string) excuse {
	return excuse{revision: "2026-07-28", scenario: "server-stateless", id: id, status: "SKIPPED",
		why: "no listChanged or subscribe capability, so subscriptions/listen is not applicable (the suite says so)",
		while: func(s *stepServer, c conformanceCheck) error {
			for _, f := range []string{"tools.listChanged", "prompts.listChanged", "resources.listChanged", "resources.subscribe"} {
				if err := s.lacks(f); err != nil {
					return err
				}
			}
			if !strings.Contains(string(c.Details), "not applicable") {
				return fmt.Errorf("the suite says subscriptions/listen is not applicable; it says %s", c.Details)
			}
			return nil
		}}
}

// lacks returns nil when server/discover does not declare feature ("resources", or
// "tools.listChanged"), and otherwise what it declares.
func (s *stepServer) lacks(feature string) error {
	if s.capsErr != nil {
		return fmt.Errorf("server/discover declares no %s; %v", feature, s.capsErr)
	}
	name, flag, isFlag := strings.Cut(feature, ".")
	c, declared := s.caps[name]
	if !isFlag && declared {
		return fmt.Errorf("server/discover declares no %s; it declares %s: %v", feature, name, c)
	}
	if isFlag && c[flag] == true {
		return fmt.Errorf("server/discover declares no %s; it declares it", feature)
	}
	return nil
}
