// Package headers checks X-Correlation-Id, X-Tenant-Id and the v1 response
// envelope (document 2, Authentication 6; document 1, Response envelope).
package headers
