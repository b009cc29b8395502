package check

import (
	"errors"

	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/openapicheck"
)

// validateRequests judges the requests of a check that the target accepted
// (a 2xx answer: openapicheck.MeantValid) against the target's served
// documents, as validateSchemas judges the responses. A request the target
// accepted but its documents refuse is a failure under SchemaRule: the
// documents do not describe the API the server serves. A request the
// harness itself got wrong (openapicheck.HarnessError) is no finding about
// the target: harness is its text, and the run reports the check as no
// verdict unless it failed on its own.
func validateRequests(target *Target, exs []*client.Exchange) (out []Failure, harness string) {
	if target.Schemas == nil {
		return nil, ""
	}
	for _, ex := range exs {
		err := target.Schemas.ValidateRequest(ex)
		var he *openapicheck.HarnessError
		switch {
		case err == nil:
		case errors.As(err, &he):
			if harness == "" {
				harness = he.Error()
			}
		default:
			out = append(out, Failure{Rule: SchemaRule, Message: "request accepted by the target does not match its OpenAPI document: " + err.Error(), Exchange: ex})
		}
	}
	return out, harness
}
