package faultproof

import (
	"encoding/json"
	"net/http"
	"strings"
)

// More API-answer variants, one sentence each (documents 1 and 2).

// dataEdit applies f to data of the v1 envelope answers to method (any
// when "") on paths matching path.
func dataEdit(rule, name, what, method, path string, f func(r *http.Request, data map[string]any)) Variant {
	return apiVariant(rule, name, what, method, path, func(r *http.Request, _ *Answer, body map[string]any) {
		if data, ok := body["data"].(map[string]any); ok {
			f(r, data)
		}
	})
}

// rename moves data[from] to data[to] when present.
func rename(from, to string) func(*http.Request, map[string]any) {
	return func(_ *http.Request, data map[string]any) {
		if v, ok := data[from]; ok {
			delete(data, from)
			data[to] = v
		}
	}
}

// drop removes data[k].
func drop(k string) func(*http.Request, map[string]any) {
	return func(_ *http.Request, data map[string]any) { delete(data, k) }
}

// vocab maps a customer_status to the verification vocabulary value a
// wrong mapping answers instead.
func vocab(rule, state, wrong string) Variant {
	return dataEdit(rule, "onboarding-"+strings.ToLower(state)+"-maps-"+wrong, state+" maps to "+wrong, http.MethodGet, `/onboarding/status$`,
		func(_ *http.Request, d map[string]any) {
			if d["customer_status"] != state {
				return
			}
			for _, k := range []string{"kyc_status", "kyb_status"} {
				if d[k] != nil {
					d[k] = wrong
				}
			}
		})
}

// unpaged drops data.pagination from a paged list's answers.
func unpaged(rule, name, path string) Variant {
	return dataEdit(rule, "list-unpaged-"+name, "the "+name+" list has no data.pagination", http.MethodGet, path, drop("pagination"))
}

var moreVariants = []Variant{
	dataEdit("ME-004", "me-prefix-other", "api_key_prefix is not the key's prefix", http.MethodGet, `/me$`, func(_ *http.Request, d map[string]any) {
		if _, ok := d["api_key_prefix"]; ok {
			d["api_key_prefix"] = "svc_sandbox_ffffffffffffffff"
		}
	}),
	dataEdit("ME-003", "me-delegated-grandchild", "delegated_customer_ids lists a customer two levels down", http.MethodGet, `/me$`, func(_ *http.Request, d map[string]any) {
		if ids, ok := d["delegated_customer_ids"].([]any); ok && len(ids) > 0 {
			d["delegated_customer_ids"] = append(ids, otherUUID)
		}
	}),
	dataEdit("ME-007", "me-subject-binding-tenant", "a subject-bound key reports subject_binding tenant", http.MethodGet, `/me$`, func(_ *http.Request, d map[string]any) {
		if d["subject_binding"] == "subject" {
			d["subject_binding"] = "tenant"
		}
	}),
	dataEdit("ONB-003", "onboarding-steps-not-vocabulary", "steps.kyc is outside the verification vocabulary", http.MethodGet, `/onboarding/status$`, func(_ *http.Request, d map[string]any) {
		if steps, ok := d["steps"].(map[string]any); ok {
			steps["kyc"], steps["kyb"] = "done", "done"
		}
	}),
	dataEdit("ONB-006", "onboarding-both-statuses", "both kyc_status and kyb_status are set", http.MethodGet, `/onboarding/status$`, func(_ *http.Request, d map[string]any) {
		for _, k := range []string{"kyc_status", "kyb_status"} {
			if d[k] == nil {
				d[k] = "pending"
			}
		}
	}),
	dataEdit("ONB-008", "onboarding-customer-status-lower", "customer_status is lower-cased", http.MethodGet, `/onboarding/status$`, func(_ *http.Request, d map[string]any) {
		if s, ok := d["customer_status"].(string); ok {
			d["customer_status"] = strings.ToLower(s)
		}
	}),
	vocab("LIFE-017", "Draft", "in_progress"),
	vocab("LIFE-019", "PendingCompliance", "pending"),
	vocab("LIFE-020", "Active", "pending"),
	vocab("LIFE-021", "Rejected", "blocked"),
	vocab("LIFE-022", "Suspended", "closed"),
	vocab("LIFE-023", "Blocked", "closed"),
	vocab("LIFE-024", "Closed", "blocked"),
	apiVariant("ONB-012", "session-case-id-not-uuid", "onboarding_case_id is not a uuid", http.MethodPost, `/(kyc|kyb)/(initiate|token)$`, func(_ *http.Request, _ *Answer, body map[string]any) {
		walk(body, func(m map[string]any) {
			if _, ok := m["onboarding_case_id"]; ok {
				m["onboarding_case_id"] = "case-1"
			}
		})
	}),
	apiVariant("ONB-014", "session-status-started", "the verification session status is started", http.MethodPost, `/(kyc|kyb)/(initiate|token)$`, func(_ *http.Request, _ *Answer, body map[string]any) {
		walk(body, func(m map[string]any) {
			if _, ok := m["onboarding_case_id"]; ok {
				m["status"] = "started"
			}
		})
	}),
	apiVariant("ONB-015", "session-first-token-null", "the first initiate's session has no token", http.MethodPost, `/(kyc|kyb)/initiate$`, func(_ *http.Request, _ *Answer, body map[string]any) {
		walk(body, func(m map[string]any) {
			if _, ok := m["token"]; ok {
				m["token"] = nil
			}
		})
	}),
	apiVariant("ONB-040", "initiate-message-other", "the initiate success message is 'Session created'", http.MethodPost, `/kyc/initiate$`, func(_ *http.Request, a *Answer, body map[string]any) {
		if a.Status/100 == 2 {
			body["message"] = "Session created"
		}
	}),
	dataEdit("ONB-023", "requirements-camel-case", "required_fields are camelCase", http.MethodGet, `/onboarding/requirements$`, func(_ *http.Request, d map[string]any) {
		if list, ok := d["required_fields"].([]any); ok {
			for i, x := range list {
				if s, ok := x.(string); ok {
					list[i] = strings.ReplaceAll(s, "first_name", "firstName")
				}
			}
		}
	}),
	dataEdit("ONB-024", "requirements-documents-not-prose", "required_documents are numbers", http.MethodGet, `/onboarding/requirements$`, func(_ *http.Request, d map[string]any) {
		if _, ok := d["required_documents"]; ok {
			d["required_documents"] = []any{1, 2}
		}
	}),
	dataEdit("ONB-025", "requirements-questionnaire-string", "questionnaire_required is a string", http.MethodGet, `/onboarding/requirements$`, func(_ *http.Request, d map[string]any) {
		if _, ok := d["questionnaire_required"]; ok {
			d["questionnaire_required"] = "yes"
		}
	}),
	dataEdit("ONB-035", "manual-submission-no-applicant", "manual submission answers lack applicant_id", http.MethodPost, `/onboarding/(kyc|kyb)$`, drop("applicant_id")),
	dataEdit("SUB-023", "end-customers-key-other", "the end-customer list is data.customers", http.MethodGet, `/end-customers$`, rename("end_customers", "customers")),
	dataEdit("DEP-002", "deposits-key-other", "the deposit list is data.items", http.MethodGet, `/(banking|crypto)/deposits$`, rename("deposits", "items")),
	dataEdit("CRYP-004", "wallet-atomic-strings", "*_atomic balances are strings", http.MethodGet, `/crypto/wallets/[^/]+/balance$`, func(_ *http.Request, d map[string]any) {
		walk(d, func(m map[string]any) {
			for k, v := range m {
				if n, ok := v.(json.Number); ok && strings.HasSuffix(k, "_atomic") {
					m[k] = n.String()
				}
			}
		})
	}),
	unpaged("PAGE-018", "customers", `/partner/customers$`),
	unpaged("PAGE-020", "crypto-deposits", `/crypto/deposits$`),
	unpaged("PAGE-021", "withdrawals", `/banking/withdrawals$`),
	unpaged("PAGE-022", "crypto-withdrawals", `/crypto/withdrawals$`),
	unpaged("PAGE-023", "conversion-requests", `/conversion-requests$`),
	{Name: "auth-401-plain-json", Rule: "AUTH-017", Description: "401 answers are application/json",
		Match: func(*http.Request) bool { return true },
		Change: func(_ *http.Request, a *Answer) {
			if a.Status == http.StatusUnauthorized {
				a.Header.Set("Content-Type", "application/json")
			}
		}},
	{Name: "rate-429-no-retry-after", Rule: "RATE-001", Description: "429 answers carry no Retry-After",
		Match: func(*http.Request) bool { return true },
		Change: func(_ *http.Request, a *Answer) {
			if a.Status == http.StatusTooManyRequests {
				a.Header.Del("Retry-After")
			}
		}},
	{Name: "rate-429-retry-after-date", Rule: "RATE-017", Description: "429 answers carry Retry-After as an HTTP date",
		Match: func(*http.Request) bool { return true },
		Change: func(_ *http.Request, a *Answer) {
			if a.Status == http.StatusTooManyRequests {
				a.Header.Set("Retry-After", "Mon, 02 Nov 2026 10:01:00 GMT")
			}
		}},
	apiVariant("RATE-003", "rate-429-code-other", "429 answers carry code too_many_requests", "", `.`, func(_ *http.Request, a *Answer, body map[string]any) {
		if a.Status == http.StatusTooManyRequests {
			body["code"] = "too_many_requests"
		}
	}),
	apiVariant("TEN-004", "tenant-header-title-other", "the X-Tenant-Id refusal's title is 'Bad header.'", "", `.`, func(_ *http.Request, a *Answer, body map[string]any) {
		if a.Status == http.StatusBadRequest && body["title"] == "Invalid tenant header." {
			body["title"] = "Bad header."
		}
	}),
}
