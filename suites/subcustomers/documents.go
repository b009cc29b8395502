package subcustomers

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

var categories = map[string]bool{"IDENTITY": true, "SELFIE": true, "COMPANY_DOC": true, "FILE_ATTACHMENT": true, "UNKNOWN": true}

// documentList finds the list in data: the one array-valued member (its
// name is not documented).
func documentList(t *check.T, data map[string]any) []any {
	var list []any
	found := 0
	for _, v := range data {
		if a, ok := v.([]any); ok {
			list = a
			found++
		}
	}
	if found != 1 {
		t.Fatalf("SUB-028", "the document list's data has %d array members, want exactly one (the list): %v", found, data)
	}
	if _, ok := data["pagination"]; ok {
		t.Fatalf("PAGE-016", "the verification document list carries pagination; it is unpaged")
	}
	return list
}

// documentsChecks are the checks of documents.go.
func documentsChecks() []check.Check {
	return []check.Check{
		{
			ID:    "subcustomers/documents",
			Title: "End-customer documents are listed with a documented category and download as raw bytes, not JSON",
			Rules: []string{"SUB-028", "SUB-008", "SUB-009", "PAGE-016"},
			Needs: []string{"keys.tenant", "customers.parent", "customers.child"},
			Run: func(t *check.T) {
				path := base(t.Customer("parent")) + "/" + t.Customer("child") + "/documents"
				docs := documentList(t, shape.EnvelopeAnswer(t, get(t, "tenant", path), shape.Want{Rule: "SUB-028", Status: http.StatusOK}))
				if len(docs) == 0 {
					t.Skipf("customers.child has no verification documents to download")
				}
				for i, x := range docs {
					d, _ := x.(map[string]any)
					if c, _ := d["category"].(string); !categories[c] {
						t.Fatalf("SUB-008", "documents[%d].category is %v, want IDENTITY, SELFIE, COMPANY_DOC, FILE_ATTACHMENT or UNKNOWN", i, d["category"])
					}
				}
				first, _ := docs[0].(map[string]any)
				id, _ := first["id"].(string)
				if id == "" {
					t.Fatalf("SUB-028", "documents[0] has no id: %v", first)
				}
				r := get(t, "tenant", path+"/"+id)
				shape.StatusAnswer(t, r, shape.Want{Rule: "SUB-009", Status: http.StatusOK})
				ct := r.ContentType()
				if ct == "" || ct == shape.JSON || ct == shape.Problem {
					t.Fatalf("SUB-009", "the download's Content-Type is %q; want the provider's content type, not JSON", r.Header.Get("Content-Type"))
				}
				if len(r.Body) == 0 {
					t.Fatalf("SUB-009", "the download has an empty body")
				}
				if m, err := r.JSON(); err == nil {
					if _, env := m["success"]; env {
						t.Fatalf("SUB-009", "the download is a JSON envelope, want raw bytes")
					}
				}
			},
		},
	}
}
