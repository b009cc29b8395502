package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"html"
	"html/template"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/redact"
)

// Planted secrets: each holds every base64 character class (upper, lower,
// digit, '+', '/', '=', '-', '_') and every HTML-special character.
const (
	// plantedKey's secret part is known to the redactor (a profile key).
	plantedKey       = "svc_sandbox_0123456789abcdef." + plantedKeySecret
	plantedKeySecret = `Pl+nt/dKey=Sec<r&t>"'_-Zz09`
	// plantedWhsec is a well-formed webhook secret the redactor was never
	// told: only its shape gives it away.
	plantedWhsec = "svc_whsec_Ab+/Cd9+Ef/Gh+Ij/Kl+Mn/Op+Qr/St+Uv/Wx+Yz/01="
	// plantedOdd is a malformed secret a target returned at registration
	// (a "secret" member), learnt from the evidence.
	plantedOdd = `odd_secret+/=<b>&"'Q9-_zz`
)

// plantedSecrets are the secrets searched for, with the shortest fragment
// of each that counts as a leak.
var plantedSecrets = []string{plantedKeySecret, plantedWhsec, plantedOdd}

func plantedRun() *Run {
	body := `{"secret":"` + strings.ReplaceAll(plantedOdd, `"`, `\"`) + `","legacy":"` + plantedWhsec + `","echo":"` + strings.ReplaceAll(plantedKey, `"`, `\"`) + `"}`
	ex := &client.Exchange{KeyName: "tenant", Request: client.RequestRecord{Method: "POST", URL: "http://h/v2/webhook-subscriptions?k=" + plantedKeySecret,
		Header: http.Header{"X-Api-Key": {plantedKey}, "X-Echo": {plantedWhsec}}, Body: []byte(`{"k":"` + plantedKeySecret + `"}`)},
		Response: &client.ResponseRecord{Status: 201, Header: http.Header{"X-Echo": {plantedKey}}, Body: []byte(body)}}
	res := func(id string, s check.Status, failures ...check.Failure) *check.Result {
		area, _, _ := strings.Cut(id, "/")
		return &check.Result{ID: id, Area: area, Title: id, Rules: []string{"WHM-014"}, Status: s, Failures: failures, CaseID: id + "#1", Duration: time.Millisecond,
			Logs: []string{"saw " + plantedWhsec + " and " + plantedKey}}
	}
	failed := res("webhooks/read-without-secret", check.Failed,
		check.Failure{Rule: "WHM-014", Message: "GET carries secret " + plantedWhsec + " / " + plantedOdd + " (key " + plantedKey + ")", Exchange: ex})
	nov := res("webhooks/no-verdict", check.Error)
	nov.Error = "transport: " + plantedKey + " " + plantedWhsec
	skip := res("webhooks/skipped", check.Skipped)
	skip.SkipReason = "profile has no " + plantedWhsec
	prop := res("property/webhook-subscriptions", check.Failed,
		check.Failure{Rule: "WHM-014", Message: "property failed\nsteps:\n1. POST -> 201 " + plantedWhsec + "\n2. GET -> 200 " + plantedOdd, Exchange: ex})
	return &Run{Target: "http://h", Started: time.Unix(0, 0).UTC(), Duration: time.Second, Results: []*check.Result{failed, nov, skip, prop}}
}

// readable is what a reader of each output sees: the page's text with
// entities decoded, every string of results.json decoded, every attribute
// and text of junit.xml decoded; the console as is.
func readable(t *testing.T, name string, raw []byte) string {
	t.Helper()
	switch filepath.Ext(name) {
	case ".html":
		return html.UnescapeString(string(raw))
	case ".json":
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var b strings.Builder
		var walk func(any)
		walk = func(v any) {
			switch x := v.(type) {
			case string:
				b.WriteString(x + "\n")
			case map[string]any:
				for k, e := range x {
					b.WriteString(k + "\n")
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(v)
		return b.String()
	case ".xml":
		var b strings.Builder
		dec := xml.NewDecoder(bytes.NewReader(raw))
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			switch x := tok.(type) {
			case xml.StartElement:
				for _, a := range x.Attr {
					b.WriteString(a.Value + "\n")
				}
			case xml.CharData:
				b.Write(x)
			}
		}
		return b.String()
	}
	return string(raw)
}

// escapes are a text's escaped forms, written out here (not taken from
// the redactor) so that the test is its own oracle.
func escapes(s string) []string {
	j, _ := json.Marshal(s)
	js := string(j[1 : len(j)-1])
	return []string{template.HTMLEscapeString(s), html.EscapeString(s), strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s),
		js, strings.ReplaceAll(js, "/", `\/`), strings.ReplaceAll(s, "'", `'\''`), strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`).Replace(s)}
}

// leaks lists the fragments (12 characters or more) of each planted
// secret that out holds, read back (readable) or in any escaped form.
func leaks(t *testing.T, name string, raw []byte) []string {
	t.Helper()
	seen := readable(t, name, raw)
	var out []string
	for _, s := range plantedSecrets {
		for i := 0; i+12 <= len(s); i++ {
			frag := s[i : i+12]
			forms := append([]string{frag}, escapes(frag)...)
			for _, f := range forms {
				if strings.Contains(seen, frag) || strings.Contains(string(raw), f) {
					out = append(out, frag)
					break
				}
			}
		}
	}
	return out
}

// TestPlantedSecretsAreMaskedInEveryReport plants secrets holding every
// base64 and HTML-special character in messages, exchanges, errors, skip
// reasons and logs, and reads every report back as its reader would: no
// fragment of any secret survives in the page, results.json, junit.xml or
// the console summary, however the format escapes it.
func TestPlantedSecretsAreMaskedInEveryReport(t *testing.T) {
	cat := catalogue.MustLoad()
	dir := t.TempDir()
	r := plantedRun()
	red := redact.New(plantedKeySecret)
	if err := WriteJSON(dir, NewDocument(r, cat), red); err != nil {
		t.Fatal(err)
	}
	if err := WriteJUnit(dir, NewDocument(r, cat), red); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(dir, NewDocument(r, cat), cat, red); err != nil {
		t.Fatal(err)
	}
	var console bytes.Buffer
	w := red.Writer(&console)
	PrintSummary(w, NewDocument(r, cat), cat)
	w.Close()
	outputs := map[string][]byte{"console": console.Bytes()}
	for _, name := range []string{"results.json", "junit.xml", "report.html"} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		outputs[name] = raw
	}
	for name, raw := range outputs {
		if l := leaks(t, name, raw); len(l) > 0 {
			t.Errorf("%s holds %d fragments of planted secrets, e.g. %q", name, len(l), l[0])
		}
	}
	// The evidence is still there, masked.
	if !strings.Contains(string(outputs["results.json"]), "svc_sandbox_0123456789abcdef.***") || !strings.Contains(string(outputs["report.html"]), "GET carries secret ***") {
		t.Error("the masked evidence is missing from results.json or the page")
	}
	// `touchstone report DIR` re-renders the same page from results.json
	// with a redactor that knows no secret.
	doc, err := ReadJSON(dir)
	if err != nil {
		t.Fatal(err)
	}
	again := t.TempDir()
	if err := WriteHTML(again, doc, cat, redact.New()); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(again, "report.html"))
	if l := leaks(t, "report.html", raw); len(l) > 0 {
		t.Errorf("the re-rendered page holds %q", l[0])
	}
}
