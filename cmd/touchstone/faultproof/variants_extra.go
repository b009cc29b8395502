package faultproof

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
)

// A third table of variants, one sentence each.

// statusRenamed renames a status value wherever it appears in the answers
// to method on path.
func statusRenamed(rule, name, method, path, from, to string) Variant {
	return apiVariant(rule, name, "status "+from+" is answered "+to, method, path, func(_ *http.Request, _ *Answer, body map[string]any) {
		walk(body, func(m map[string]any) {
			if m["status"] == from {
				m["status"] = to
			}
		})
	})
}

// memberSet sets k to v in every object of the answers that has k.
func memberSet(rule, name, method, path, k string, v any) Variant {
	return apiVariant(rule, name, k+" is answered "+jsonText(v), method, path, func(_ *http.Request, _ *Answer, body map[string]any) {
		walk(body, func(m map[string]any) {
			if _, ok := m[k]; ok {
				m[k] = v
			}
		})
	})
}

// assetNetwork answers another deposit-address network for one asset.
func assetNetwork(rule, asset, network string) Variant {
	return apiVariant(rule, "crypto-network-"+asset, asset+" deposit addresses are on network "+network, "", `/crypto/`, func(_ *http.Request, _ *Answer, body map[string]any) {
		walk(body, func(m map[string]any) {
			if _, ok := m["network"]; ok && m["asset_code"] == asset {
				m["network"] = network
			}
		})
	})
}

// codeRenamed answers another code in place of code on the answers to
// method on path (the status kept).
func codeRenamed(rule, code, method, path string) Variant {
	return apiVariant(rule, "code-renamed-"+code+"-"+strings.ToLower(rule), code+" is answered "+code+"_other", method, path, func(_ *http.Request, _ *Answer, body map[string]any) {
		if d, ok := body["data"].(map[string]any); ok && d["code"] == code {
			d["code"] = code + "_other"
		}
		if body["code"] == code {
			body["code"] = code + "_other"
		}
	})
}

// sameSecret answers a rotation with the secret the subscription was
// registered with (remembered from the register answers it saw).
func sameSecret() Variant {
	var mu sync.Mutex
	first := map[string]string{}
	return Variant{Name: "webhook-rotation-same-secret", Rule: "WHM-008", Description: "a secret rotation answers the secret already held",
		Match: func(r *http.Request) bool { return strings.Contains(r.URL.Path, "/webhook-subscriptions") },
		Change: func(r *http.Request, a *Answer) {
			m, ok := a.JSON().(map[string]any)
			if !ok {
				return
			}
			id, _ := m["subscriptionId"].(string)
			secret, _ := m["secret"].(string)
			if id == "" || secret == "" {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if strings.HasSuffix(r.URL.Path, "/secret-rotations") {
				if old := first[id]; old != "" {
					m["secret"] = old
					a.SetJSON(m)
				}
				return
			}
			first[id] = secret
		}}
}

var extraVariants = []Variant{
	sameSecret(),
	dataEdit("BEN-021", "beneficiary-create-key-other", "beneficiary creation answers data.beneficiary", http.MethodPost, `/banking/beneficiaries$`, rename("beneficiaries", "beneficiary")),
	dataEdit("CONV-014", "conversion-key-other", "conversion creation answers data.conversion", http.MethodPost, `/conversion-requests$`, rename("conversion_request", "conversion")),
	statusRenamed("LIFE-007", "customer-suspended-reads-active", http.MethodGet, `/partner/customers/[^/]+$`, "Suspended", "Active"),
	statusRenamed("LIFE-008", "customer-blocked-reads-active", http.MethodGet, `/partner/customers/[^/]+$`, "Blocked", "Active"),
	statusRenamed("LIFE-009", "customer-closed-reads-active", http.MethodGet, `/partner/customers/[^/]+$`, "Closed", "Active"),
	dataEdit("CUST-009", "customers-list-key-items", "the customer list is data.items, not data.customers", http.MethodGet, `/partner/customers$`, rename("customers", "items")),
	dataEdit("ME-001", "me-tenant-key-customer", "a tenant-bound key's customer_id is set", http.MethodGet, `/me$`, func(_ *http.Request, d map[string]any) {
		if d["subject_binding"] == "tenant" && d["customer_id"] == nil {
			d["customer_id"] = otherUUID
		}
	}),
	dataEdit("WLA-012", "whitelist-created-active", "a new whitelist entry is Active", http.MethodPost, `/crypto/withdrawal-addresses$`, func(_ *http.Request, d map[string]any) {
		walk(d, func(m map[string]any) {
			if m["status"] == "PendingVerification" {
				m["status"] = "Active"
			}
		})
	}),
	// A success answering pending breaks ITR-007's sentence (the answer's
	// status is completed); ITR-010 states the same value for the same
	// answer (the only place a transfer's status is read), and what it
	// adds, completed only once both balance changes have committed, is
	// proven by the fault internal-transfer-destination-not-credited. So
	// this edit is ITR-007's variant, and no second copy of it is written
	// for ITR-010.
	dataEdit("ITR-007", "transfer-answer-pending", "a successful internal transfer answers pending", http.MethodPost, `/internal-transfers$`, func(_ *http.Request, d map[string]any) {
		if t, ok := d["internal_transfer"].(map[string]any); ok && t["status"] == "completed" {
			t["status"] = "pending"
		}
	}),
	unpaged("PAGE-024", "payout-batches", `/payout-batches$`),
	apiVariant("WHM-004", "webhook-list-with-secret", "the subscription list carries secrets", http.MethodGet, `/webhook-subscriptions$`, func(_ *http.Request, _ *Answer, body map[string]any) {
		walk(body, func(m map[string]any) {
			if _, ok := m["subscriptionId"]; ok {
				m["secret"] = "whsec_leaked"
			}
		})
	}),
	apiVariant("WHM-005", "webhook-read-with-secret", "reading a subscription returns its secret", http.MethodGet, pathSub, func(_ *http.Request, _ *Answer, body map[string]any) {
		if _, ok := body["subscriptionId"]; ok {
			body["secret"] = "whsec_leaked"
		}
	}),
	apiVariant("AUTH-018", "auth-401-code-other", "401 answers carry code api_key_revoked", "", `.`, func(_ *http.Request, a *Answer, body map[string]any) {
		if a.Status == http.StatusUnauthorized && body["code"] == "api_key_authentication_failed" {
			body["code"] = "api_key_revoked"
		}
	}),
	apiVariant("ERR-139", "auth-401-granular-detail", "401 answers give the granular reason as detail", "", `.`, func(_ *http.Request, a *Answer, body map[string]any) {
		if a.Status == http.StatusUnauthorized && body["detail"] == "API key authentication failed." {
			body["detail"] = "API key revoked."
		}
	}),
	codeRenamed("CRYP-029", "unsupported_asset", http.MethodPost, `/crypto/`),
	statusRenamed("SUB-006", "customer-onboarding-reads-draft", http.MethodGet, `/partner/customers/[^/]+$`, "Onboarding", "Draft"),
	assetNetwork("CRYP-007", "BTC", "BTC_MAINNET"),
	assetNetwork("CRYP-008", "ETH", "ETH_MAINNET"),
	assetNetwork("CRYP-009", "USDC", "POLYGON"),
	assetNetwork("CRYP-011", "TRX", "TRC20"),
	eventEdit("FIAT-013", "account-rejected-status-cased", "data.status Failed, not failed", inData(func(d map[string]any) {
		if d["status"] == "failed" {
			d["status"] = "Failed"
		}
	}), accountFamily...),
	eventEdit("FIAT-015", "account-pending-status-cased", "data.status Pending, not pending", inData(func(d map[string]any) {
		if d["status"] == "pending" {
			d["status"] = "Pending"
		}
	}), accountFamily...),
	statusRenamed("CWD-014", "crypto-withdrawal-parked-renamed", http.MethodPost, `/crypto/withdrawals$`, "ManualReviewRequired", "Parked"),
	statusRenamed("FWD-009", "withdrawal-pending-provider-renamed", "", `/banking/withdrawals`, "PendingProvider", "Submitted"),
	memberSet("DEP-004", "deposit-reference-other", http.MethodGet, `/deposits`, "reference", "another reference"),
	apiVariant("PB-031", "batch-item-skipped-code", "Skipped items carry failure_code invalid", "", pathBatches, itemsWhere("Skipped", "failure_code", "invalid")),
	dataEdit("PAGE-005", "page-default-two", "without page the list answers current_page 2", http.MethodGet, `.`, func(r *http.Request, d map[string]any) {
		if p, ok := d["pagination"].(map[string]any); ok && r.URL.Query().Get("page") == "" {
			p["current_page"] = 2
		}
	}),
	dataEdit("PAGE-016", "unpaged-list-paged", "the wallet and end-customer lists carry data.pagination", http.MethodGet, `/(crypto/wallets|end-customers)$`, func(_ *http.Request, d map[string]any) {
		d["pagination"] = map[string]any{"current_page": 1, "last_page": 1, "per_page": 100, "total": 1}
	}),
	apiVariant("PB-071", "batch-usd-default-rail", "a USD batch without a rail gets DOMESTIC_WIRE", http.MethodPost, `/payout-batches$`, func(r *http.Request, a *Answer, body map[string]any) {
		if req := a.RequestJSON(); req != nil && req["rail"] == nil && req["currency"] == "USD" {
			batches(func(b map[string]any) { b["rail"] = "DOMESTIC_WIRE" })(r, a, body)
		}
	}),
	memberSet("SUB-008", "document-category-other", http.MethodGet, `/documents`, "category", "PASSPORT"),
	apiVariant("V2-001", "v2-customers-empty", "GET V2/customers lists no customer", http.MethodGet, `/api/v2/public/customers$`, func(_ *http.Request, _ *Answer, body map[string]any) {
		if _, ok := body["items"]; ok {
			body["items"], body["count"] = []any{}, 0
		}
	}),
	apiVariant("V2-006", "v2-list-count-over-limit", "a full v2 customers page reports count one above limit", http.MethodGet, `/api/v2/public/customers$`, func(_ *http.Request, _ *Answer, body map[string]any) {
		if c, ok := body["count"].(json.Number); ok && body["limit"] == c {
			n, _ := c.Int64()
			body["count"] = n + 1
		}
	}),
	apiVariant("V2-007", "v2-fiat-accounts-no-count", "GET V2/fiat/accounts does not report count", http.MethodGet, `/api/v2/public/fiat/accounts$`, func(_ *http.Request, _ *Answer, body map[string]any) { delete(body, "count") }),
	apiVariant("ERR-012", "envelope-422-no-detail", "the 422 envelope refusal of GET /onboarding/requirements lacks data.detail", http.MethodGet, `/api/v1/partner/onboarding/requirements$`, func(_ *http.Request, a *Answer, body map[string]any) {
		if d, ok := body["data"].(map[string]any); ok && a.Status == http.StatusUnprocessableEntity {
			delete(d, "detail")
		}
	}),
	apiVariant("ERR-020", "binding-400-coded", "the body-binding 400 of POST /customers for a well-formed body of the wrong types carries a code", http.MethodPost, `/api/v1/partner/customers$`, func(_ *http.Request, a *Answer, body map[string]any) {
		if _, ok := body["errors"]; ok && a.Status == http.StatusBadRequest && body["code"] == nil && json.Valid(a.Request) {
			body["code"] = "invalid_request_body"
		}
	}),
	// The check-order steps' own answers, changed only where a request
	// fails two steps (so no single-step check sees them).
	apiVariant("ORDER-002", "order-correlation-refusal-coded-with-tenant-header", "an invalid X-Correlation-Id sent with X-Tenant-Id is refused 400 with code invalid_correlation_id", "", `/api/v1/partner/`, func(r *http.Request, a *Answer, body map[string]any) {
		if _, tenant := r.Header["X-Tenant-Id"]; tenant && a.Status == http.StatusBadRequest && body["code"] == "correlation_id_invalid" {
			body["code"] = "invalid_correlation_id"
		}
	}),
	apiVariant("ORDER-011", "order-two-idempotency-keys-coded-otherwise", "two Idempotency-Key lines on POST /customers are refused 400 with code idempotency_key_duplicated", http.MethodPost, `/api/v1/partner/customers$`, func(r *http.Request, a *Answer, body map[string]any) {
		if len(r.Header.Values("Idempotency-Key")) > 1 && a.Status == http.StatusBadRequest && body["code"] == "idempotency_key_invalid" {
			body["code"] = "idempotency_key_duplicated"
		}
	}),
	apiVariant("ORDER-013", "order-conflict-coded-otherwise-with-malformed-body", "a reused Idempotency-Key with a malformed body is refused 409 with code idempotency_conflict", http.MethodPost, `/api/v1/partner/customers$`, func(_ *http.Request, a *Answer, body map[string]any) {
		if len(a.Request) > 0 && !json.Valid(a.Request) && a.Status == http.StatusConflict && body["code"] == "idempotency_key_reused" {
			body["code"] = "idempotency_conflict"
		}
	}),
	apiVariant("ORDER-015", "order-binding-400-coded-on-patch", "the body-binding 400 of PATCH /customers/{id} carries a code", http.MethodPatch, `/api/v1/partner/customers/[^/]+$`, func(_ *http.Request, a *Answer, body map[string]any) {
		if _, ok := body["errors"]; ok && a.Status == http.StatusBadRequest && body["code"] == nil {
			body["code"] = "invalid_request_body"
		}
	}),
	apiVariant("V2-005", "v2-list-no-limit", "a v2 list does not report limit", http.MethodGet, `/api/v2/public/customers$`, func(_ *http.Request, _ *Answer, body map[string]any) { delete(body, "limit") }),
	{Name: "openapi-v1-not-served", Rule: "VER-003", Description: "/openapi/v1.json answers 404",
		Match: func(r *http.Request) bool { return r.URL.Path == "/openapi/v1.json" },
		Change: func(_ *http.Request, a *Answer) {
			a.Status, a.Body = http.StatusNotFound, []byte(`{"title":"Not Found","detail":"no","status":404,"code":null}`)
		}},
	{Name: "openapi-v2-not-served", Rule: "VER-004", Description: "/openapi/v2public.json answers 404",
		Match: func(r *http.Request) bool { return r.URL.Path == "/openapi/v2public.json" },
		Change: func(_ *http.Request, a *Answer) {
			a.Status, a.Body = http.StatusNotFound, []byte(`{"title":"Not Found","detail":"no","status":404,"code":null}`)
		}},
	dataEdit("BEN-020", "beneficiary-list-key-other", "the beneficiary list is data.items", http.MethodGet, `/banking/beneficiaries$`, rename("beneficiaries", "items")),
	{Name: "rate-429-plain-json", Rule: "ERR-009", Description: "429 answers are application/json",
		Match: func(*http.Request) bool { return true },
		Change: func(_ *http.Request, a *Answer) {
			if a.Status == http.StatusTooManyRequests {
				a.Header.Set("Content-Type", "application/json")
			}
		}},
}
