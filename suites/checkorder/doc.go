// Package checkorder checks the documented error check order (document 2,
// Errors / Check order) and the three error body shapes and content types.
package checkorder
