package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestPropertyFailureIsShrunkAndReadable: a one-GET defect (a GET of a
// webhook subscription carries its secret) found by the webhook
// subscriptions property is reported as the two steps that show it
// (register, read), one numbered step a line, with one reproduce line
// (touchstone replay, which draws the same case again) and none of rapid's
// go-test hints, on the console, in results.json and on the page.
func TestPropertyFailureIsShrunkAndReadable(t *testing.T) {
	out := t.TempDir()
	stdout, stderr, code := touchstoneWithin(t, 180*time.Second, nil, "run", "--fault", "webhook-secret-in-get", "--focus", `^property/webhook-subscriptions$`, "--out", out)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitFailed, tail(stdout), stderr)
	}
	raw, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Results []struct {
			ID       string   `json:"id"`
			Logs     []string `json:"logs"`
			Evidence []struct {
				Rule, Message, Curl string
			} `json:"evidence"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Results) != 1 || len(doc.Results[0].Evidence) == 0 {
		t.Fatalf("results: %+v", doc.Results)
	}
	msg := doc.Results[0].Evidence[0].Message
	steps := regexp.MustCompile(`(?m)^(\d+)\. `).FindAllStringSubmatch(msg, -1)
	if len(steps) == 0 || len(steps) > 3 {
		t.Errorf("the shrunk case has %d numbered steps, want 2 (register, read), at most 3:\n%s", len(steps), msg)
	}
	if !strings.HasPrefix(msg, "GET carries a secret member") || !regexp.MustCompile(`(?m)^\d+\. GET webhook-subscriptions/`).MatchString(msg) {
		t.Errorf("the message does not end on the GET that shows the defect:\n%s", msg)
	}
	console := stdout + stderr
	for name, text := range map[string]string{"results.json": msg, "console": console} {
		for _, hint := range []string{"-rapid.seed", "go test", "To reproduce", "Failed test output", "TOUCHSTONE_RAPID_SEED=N"} {
			if strings.Contains(text, hint) {
				t.Errorf("%s carries the reproduce hint %q", name, hint)
			}
		}
	}
	if n := strings.Count(console, "replay: touchstone replay"); n != 1 || strings.Contains(console, "reproduce:") {
		t.Errorf("console: %d replay lines and reproduce lines %v, want exactly one replay line:\n%s", n, strings.Contains(console, "reproduce:"), tail(console))
	}
	if logs := strings.Join(doc.Results[0].Logs, "\n"); !strings.Contains(logs, "rapid seed ") {
		t.Errorf("the result's logs do not name the rapid seed: %q", logs)
	}
	page, _ := os.ReadFile(filepath.Join(out, "report.html"))
	list := regexp.MustCompile(`(?s)<ol class="steps">(.*?)</ol>`).FindStringSubmatch(string(page))
	if list == nil || strings.Count(list[1], "<li>") != len(steps) || strings.Contains(string(page), "reproduce:") {
		t.Errorf("the page does not list the %d steps as a numbered list, or offers one request as the reproduction: %q", len(steps), list)
	}
	// The replay draws the same case first and still fails.
	rout, rerr, rcode := touchstoneWithin(t, 120*time.Second, nil, "replay", filepath.Join(out, "results.json"), "property/webhook-subscriptions", "--out", t.TempDir())
	if rcode != exitFailed || !strings.Contains(rout, "still fails") || !strings.Contains(rout, "case 1 failed") {
		t.Errorf("replay: exit %d, want 1, failing on its first case\n%s\n%s", rcode, tail(rout), rerr)
	}
}
