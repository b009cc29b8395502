package check

import (
	"net/http"
	"time"

	"github.com/touchstone-harness/touchstone/internal/client"
)

// RequestTimeout bounds every request a check sends, body included
// (TOUCHSTONE_REQUEST_TIMEOUT overrides it, e.g. "2s" in tests).
var RequestTimeout = envDuration("TOUCHSTONE_REQUEST_TIMEOUT", 30*time.Second)

func httpClient(caBundle string) (*http.Client, error) {
	return client.Transport(caBundle, RequestTimeout)
}
