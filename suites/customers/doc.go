// Package customers checks the customer routes and the customer lifecycle
// (document 1, Identity and customers; States / Customer lifecycle).
package customers
