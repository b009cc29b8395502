package reports

import (
	"regexp"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/check"
)

// FailureText is a finished check's account for the console and JUnit:
// each failure's rule and message, then the curl line that reproduces its
// exchange. A property's failure carries its own numbered steps, each with
// its curl line, so no single request is offered as its reproduction;
// the replay command (ReplayCommand) is the one line that re-runs it.
func FailureText(r *check.Result) string {
	if r.Status != check.Failed {
		return r.Summary()
	}
	parts := make([]string, 0, len(r.Failures))
	for _, f := range r.Failures {
		p := "[" + f.Rule + "] " + f.Message
		if f.Exchange != nil && !hasSteps(f.Message) {
			p += "\n  reproduce: " + f.Exchange.Curl()
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "\n")
}

// Step is one numbered step of a property's shrunk case: what was done and
// the answer's status, and the curl line that sends it (none for a control
// operation).
type Step struct {
	What, Curl string
}

var stepLine = regexp.MustCompile(`^(\d+)\. (.*)$`)

// SplitSteps splits a failure message into its text and the numbered steps
// that follow it ("1. POST … -> 201" lines, each followed by its indented
// curl line), as a property writes them.
func SplitSteps(msg string) (text string, steps []Step) {
	lines := strings.Split(msg, "\n")
	first := len(lines)
	for i, l := range lines {
		if m := stepLine.FindStringSubmatch(l); m != nil && m[1] == "1" {
			first = i
			break
		}
	}
	for _, l := range lines[first:] {
		if m := stepLine.FindStringSubmatch(l); m != nil {
			steps = append(steps, Step{What: m[2]})
		} else if len(steps) > 0 && strings.TrimSpace(l) != "" {
			s := &steps[len(steps)-1]
			s.Curl = strings.TrimSpace(s.Curl + "\n" + strings.TrimSpace(l))
		}
	}
	return strings.Join(lines[:first], "\n"), steps
}

func hasSteps(msg string) bool {
	_, steps := SplitSteps(msg)
	return len(steps) > 0
}
