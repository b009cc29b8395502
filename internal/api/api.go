// Package api names the documented path prefixes every check builds its
// requests from (document 1, Common rules; document 2, Endpoints), so that
// a path is spelled one way across the suites.
package api

const (
	// P is the v1 partner prefix.
	P = "/api/v1/partner"
	// V2 is the v2 public prefix.
	V2 = "/api/v2/public"
	// Config is the public partner configuration path (document 1, Other paths).
	Config = "/api/public/partner/config"
	// Callback is the verification callback path (document 1, Other paths).
	Callback = "/api/v1/verification/callback"
)

// Customer is P/customers/{id}.
func Customer(id string) string { return P + "/customers/" + id }
