package faultproof

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// Variants of answer members in the money-movement areas (fiat accounts,
// sub-customers, exchange), one sentence each.
var areaVariants = []Variant{
	dataEdit("SUB-026", "nested-account-under-fiat-account", "the nested account issue answers data.fiat_account instead of data.account",
		http.MethodPost, `/end-customers/[^/]+/accounts$`, rename("account", "fiat_account")),
	dataEdit("CONV-010", "invalid-pair-other-code", "an invalid pair on /transfer/price is refused with code unsupported_pair instead of invalid_pair",
		http.MethodGet, `/transfer/price$`, func(_ *http.Request, d map[string]any) {
			if d["code"] == "invalid_pair" {
				d["code"] = "unsupported_pair"
			}
		}),
}

func init() {
	areaVariants = append(areaVariants,
		dataEdit("FIAT-017", "nested-completed-without-provider-account", "a Completed nested account reads provider_account_id null",
			http.MethodGet, `/end-customers/[^/]+/accounts/[^/]+$`, func(_ *http.Request, d map[string]any) {
				if a, ok := d["account"].(map[string]any); ok && a["status"] == "Completed" {
					a["provider_account_id"] = nil
				}
			}),
		dataEdit("CRYP-023", "wallet-request-state-undocumented", "the balance read reports the wallet request state ManualReviewRequired as ManualReview",
			http.MethodGet, `/crypto/wallets/[^/]+/balance$`, func(_ *http.Request, d map[string]any) {
				if d["status"] == "ManualReviewRequired" {
					d["status"] = "ManualReview"
				}
			}),
		apiVariant("PB-040", "batch-item-amount-major-units", "payout batch item amounts are answered in major units (500 as 5)", "", `/payout-batches`,
			items(func(_, it map[string]any) {
				if n, ok := it["amount"].(json.Number); ok {
					if v, err := n.Int64(); err == nil && v%100 == 0 {
						it["amount"] = json.Number(strconv.FormatInt(v/100, 10))
					}
				}
			})),
	)
}

func init() {
	areaVariants = append(areaVariants,
		apiVariant("PB-062", "batch-rail-fps-as-faster-payments", "the GBP canonical rail FPS is answered FASTER_PAYMENTS", "", `/payout-batches`, renameRail("FPS", "FASTER_PAYMENTS")),
		apiVariant("PB-065", "batch-rail-sct-as-sepa", "the EUR canonical rail SCT is answered SEPA", "", `/payout-batches`, renameRail("SCT", "SEPA")),
		apiVariant("PB-068", "batch-rail-ach-as-ach-standard", "the USD canonical rail ACH is answered ACH_STANDARD", "", `/payout-batches`, renameRail("ACH", "ACH_STANDARD")),
	)
}

func init() {
	areaVariants = append(areaVariants,
		apiVariant("PB-017", "batch-executing-read-as-approved", "an Executing payout batch is read as Approved", http.MethodGet, `/payout-batches/[^/]+$`,
			batches(func(b map[string]any) {
				if b["status"] == "Executing" {
					b["status"] = "Approved"
				}
			})),
		dataEdit("ITR-002", "internal-transfer-currency-lower-case", "an internal transfer answers its currency in lower case (gbp)", http.MethodPost, `/internal-transfers$`,
			func(_ *http.Request, d map[string]any) {
				if x, ok := d["internal_transfer"].(map[string]any); ok {
					if c, ok := x["currency"].(string); ok {
						x["currency"] = strings.ToLower(c)
					}
				}
			}),
	)
}

func init() {
	areaVariants = append(areaVariants,
		dataEdit("CWD-010", "crypto-withdrawal-list-status-submitted", "the crypto withdrawal list shows SubmittedToProvider as Submitted, outside the documented statuses", http.MethodGet, `/crypto/withdrawals$`,
			func(_ *http.Request, d map[string]any) {
				rows, _ := d["withdrawals"].([]any)
				for _, x := range rows {
					if w, ok := x.(map[string]any); ok && w["status"] == "SubmittedToProvider" {
						w["status"] = "Submitted"
					}
				}
			}),
	)
}

func init() {
	areaVariants = append(areaVariants,
		apiVariant("PB-001", "batch-created-for-another-customer", "a created payout batch answers another customer's id", http.MethodPost, `/payout-batches$`,
			batches(func(b map[string]any) {
				if _, ok := b["customer_id"]; ok {
					b["customer_id"] = otherUUID
				}
			})),
	)
}

// nestSession moves a verification session's members under data.session.
func nestSession(_ *http.Request, d map[string]any) {
	if _, ok := d["onboarding_case_id"]; !ok {
		return
	}
	inner := map[string]any{}
	for k, v := range d {
		inner[k] = v
		delete(d, k)
	}
	d["session"] = inner
}

func init() {
	areaVariants = append(areaVariants,
		dataEdit("ONB-028", "initiate-session-nested", "the initiate answer nests the verification session under data.session", http.MethodPost, `/onboarding/(kyc|kyb)/initiate$`, nestSession),
		dataEdit("ONB-029", "token-session-nested", "the token answer nests the verification session under data.session", http.MethodPost, `/onboarding/(kyc|kyb)/token$`, nestSession),
		dataEdit("FIAT-019", "form-schema-empty", "GET .../banking/accounts/form-schema answers an empty data object", http.MethodGet, `/banking/accounts/form-schema$`,
			func(_ *http.Request, d map[string]any) {
				for k := range d {
					delete(d, k)
				}
			}),
	)
}

func init() {
	areaVariants = append(areaVariants,
		apiVariant("PB-014", "batch-submitted-read-as-draft", "a submitted (PendingApproval) payout batch is read as Draft", http.MethodGet, `/payout-batches/[^/]+$`,
			batches(func(b map[string]any) {
				if b["status"] == "PendingApproval" {
					b["status"] = "Draft"
				}
			})),
	)
}
