package check

import (
	"net/http"
	"time"

	"github.com/touchstone-harness/touchstone/internal/client"
)

// requestTimeout bounds every request a check sends.
const requestTimeout = 30 * time.Second

func httpClient(caBundle string) (*http.Client, error) {
	return client.Transport(caBundle, requestTimeout)
}
