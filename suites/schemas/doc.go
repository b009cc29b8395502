// Package schemas checks the served OpenAPI documents (document 2,
// Versioning 3). Every response any check sees is also validated against
// them (see internal/check).
package schemas
