// Package webhooks checks webhook management (document 2, Endpoints:
// webhook management) and webhook deliveries (document 2, Events). One
// documented area per file. The verification of one delivery lives in the
// importable package verify.
package webhooks
