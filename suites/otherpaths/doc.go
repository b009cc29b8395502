// Package otherpaths checks /test, the public config, the verification
// callback and the v2 customer list (document 1, Other paths; document 2,
// Endpoints).
package otherpaths
