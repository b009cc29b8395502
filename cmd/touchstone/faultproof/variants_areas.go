package faultproof

import "net/http"

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
