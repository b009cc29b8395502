package schemas

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/openapicheck"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// documentsChecks are the checks of documents.go.
func documentsChecks() []check.Check {
	return slices.Concat(
		documentsServedChecks(),
		responsesMatchDocumentsChecks(),
	)
}

// documentsServedChecks are checks of documents.go (see documentsChecks).
func documentsServedChecks() []check.Check {
	return []check.Check{
		{
			ID:    "schemas/documents-served",
			Title: "serves /openapi/v1.json and /openapi/v2public.json without a key, as OpenAPI documents that load and validate",
			Rules: []string{"VER-003", "VER-004", "VER-005"},
			Run:   documentsServed,
		},
		{
			ID:    "schemas/documents-cover-every-operation",
			Title: "the served documents describe every documented operation",
			Rules: []string{"VER-013", "VER-003"},
			Run:   documentsCoverOperations,
		},
	}
}

func documentsServed(t *check.T) {
	for i, path := range openapicheck.Documents {
		rule := []string{"VER-003", "VER-004"}[i]
		r := t.Do(t.Anonymous(), client.Request{Method: http.MethodGet, Path: path})
		shape.StatusAnswer(t, r, shape.Want{Rule: rule, Status: http.StatusOK, What: fmt.Sprintf("GET %s without a key", path)})
		// The reading VER-005 takes of what is served: a JSON body with an
		// openapi (or swagger) version member and a paths object.
		m, err := r.JSON()
		_, hasPaths := m["paths"].(map[string]any)
		if err != nil || (m["openapi"] == nil && m["swagger"] == nil) || !hasPaths {
			t.FatalAt(r, "VER-005", "GET %s without a key: the body is not a JSON object with an openapi (or swagger) member and a paths object: %s", path, shape.Clip(r.Body))
		}
		if _, err := openapicheck.Parse(r.Body, t.Profile().BaseURL); err != nil {
			t.Fatalf(rule, "%s: %v", path, err)
		}
	}
}

var paramRe = regexp.MustCompile(`\{[^}]+\}`)

func documentsCoverOperations(t *check.T) {
	described := map[string]bool{}
	for _, path := range openapicheck.Documents {
		r := t.Do(t.Anonymous(), client.Request{Method: http.MethodGet, Path: path})
		doc, err := openapicheck.Parse(r.Body, t.Profile().BaseURL)
		if err != nil {
			t.Fatalf("VER-003", "%s: %v", path, err)
		}
		for p, item := range doc.Paths.Map() {
			for method := range item.Operations() {
				described[method+" "+paramRe.ReplaceAllString(p, "{}")] = true
			}
		}
	}
	var missing []string
	for _, op := range documentedOperations {
		if !described[paramRe.ReplaceAllString(op, "{}")] {
			missing = append(missing, op)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("VER-013", "%d documented operations are not described: %s", len(missing), strings.Join(missing, "; "))
	}
}

// responsesMatchDocumentsChecks returns check
// schemas/responses-match-documents (one of documentsChecks).
func responsesMatchDocumentsChecks() []check.Check {
	return []check.Check{
		{
			ID:    "schemas/responses-match-documents",
			Title: "answers to a sample of operations, successes and errors, match the served documents",
			Rules: []string{"VER-012"},
			Needs: []string{"customers.active_personal"},
			Run:   responsesMatchDocuments,
		},
	}
}

// responsesMatchDocuments sends a sample of requests; the runner validates
// every response against the served documents under VER-012, so this check
// fails when any of them does not match. It also asserts the documents
// could be loaded at all.
func responsesMatchDocuments(t *check.T) {
	if err := t.Target().SchemaError; err != nil {
		t.Fatalf("VER-012", "the served OpenAPI documents could not be loaded, so no response can be validated: %v", err)
	}
	tenant := t.Client("tenant")
	id := t.Customer("active_personal")
	for _, r := range []client.Request{
		{Method: http.MethodGet, Path: api.P + "/me"},
		{Method: http.MethodGet, Path: api.P + "/customers", Query: map[string][]string{"limit": {"3"}}},
		{Method: http.MethodGet, Path: api.P + "/customers/" + id},
		{Method: http.MethodGet, Path: api.P + "/customers/" + id + "/onboarding/status"},
		{Method: http.MethodGet, Path: api.P + "/customers/00000000-0000-4000-8000-000000000000"},
	} {
		t.Do(tenant, r)
	}
	t.Do(t.Anonymous(), client.Request{Method: http.MethodGet, Path: api.P + "/me"})
}
