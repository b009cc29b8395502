// Package ratelimit checks the per-route and tenant budgets, fixed windows
// on clock minutes and the 429 shape (document 2, Limits).
package ratelimit
