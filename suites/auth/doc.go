// Package auth checks authentication, scopes, key bindings, /me and CORS
// (document 2, Authentication).
package auth
