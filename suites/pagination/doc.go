// Package pagination checks every paged list and the unpaged lists
// (document 1, Pagination).
package pagination
