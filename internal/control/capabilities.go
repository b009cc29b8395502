package control

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/controlcontract"
)

// NotServedError is a call to an operation the target's capabilities do
// not list: it is not sent.
type NotServedError struct{ Op, Method, Path string }

func (e *NotServedError) Error() string {
	return fmt.Sprintf("control call %s (%s %s) is not served by the target", e.Op, e.Method, e.Path)
}

// RefusedError is a call the target refused as an operation it does not
// serve (404 other than "no such <resource>", 405 or 501): the target's
// control failure, never a finding about the API.
type RefusedError struct {
	Op, Method, Path string
	Status           int
	Body             string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("control call %s (%s %s) refused by the target: %d %s", e.Op, e.Method, e.Path, e.Status, e.Body)
}

// refusal tells whether an answer says the operation is not served: 405,
// 501, or a 404 whose error is not "no such <resource>" (the contract's
// answer for a resource the world lacks; "no such ... operation" is a
// refusal).
func refusal(status int, body []byte) bool {
	switch status {
	case http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return true
	case http.StatusNotFound:
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &e) != nil {
			return true
		}
		msg := strings.TrimSpace(e.Error)
		return !strings.HasPrefix(msg, "no such ") || strings.HasSuffix(msg, " operation")
	}
	return false
}

// Learn asks the control service which operations it serves: its
// capabilities document, else the operation ids of the OpenAPI document
// it serves at /openapi.json; when it serves neither, every operation is
// taken as served (the all-or-nothing of a control URL without them).
// It sets c.Served and c.ServedFrom.
func (c *Client) Learn(ctx context.Context) error {
	var caps Capabilities
	err := c.get(ctx, "/capabilities", &caps)
	// A 2xx that is not a capabilities document of this contract (no
	// contract name, no operations list: a server answering {} to
	// everything) says nothing about what is served.
	if err == nil && caps.Contract == controlcontract.Name && caps.Operations != nil {
		c.Served, c.ServedFrom = map[string]bool{}, "capabilities"
		for _, op := range caps.Operations {
			c.Served[op] = true
		}
		return nil
	}
	var re *RefusedError
	if err != nil && !errors.As(err, &re) {
		return err
	}
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := c.get(ctx, "/openapi.json", &doc); err == nil && len(doc.Paths) > 0 {
		c.Served, c.ServedFrom = map[string]bool{}, "openapi.json"
		for _, item := range doc.Paths {
			for _, o := range item {
				if o.OperationID != "" {
					c.Served[o.OperationID] = true
				}
			}
		}
		return nil
	}
	c.Served, c.ServedFrom = nil, ""
	return nil
}

// get reads a document of the control service itself (not a contract
// call a check makes: no OnCall, no capability test).
func (c *Client) get(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+path, nil)
	if err != nil {
		return err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("control GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	raw, err := client.ReadBody(resp.Body)
	if refusal(resp.StatusCode, raw) {
		return &RefusedError{Op: OperationID(http.MethodGet, path), Method: http.MethodGet, Path: path, Status: resp.StatusCode, Body: clip(raw)}
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("control GET %s: %d %s", path, resp.StatusCode, clip(raw))
	}
	if err != nil {
		return fmt.Errorf("control GET %s: %w", path, err)
	}
	return json.Unmarshal(raw, out)
}

func clip(raw []byte) string {
	if len(raw) > 512 {
		raw = raw[:512]
	}
	return string(bytes.TrimSpace(raw))
}

// Serves tells whether the target serves an operation (every one when it
// published no capabilities).
func (c *Client) Serves(op string) bool {
	return c.Served == nil || c.Served[op]
}

// Missing are the operations of ops the target does not serve, sorted.
func (c *Client) Missing(ops []string) []string {
	var out []string
	for _, op := range ops {
		if !c.Serves(op) && !slices.Contains(out, op) {
			out = append(out, op)
		}
	}
	sort.Strings(out)
	return out
}
