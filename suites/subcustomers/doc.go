// Package subcustomers checks end customers: create, list, read,
// onboarding, documents, balance and gating (document 1, Sub-customers).
package subcustomers
