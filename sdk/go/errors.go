// What a failed call means for the shop: an error answer (*ErrorAnswer,
// returned as the result) says whether it may have been charged and whether
// sending it again is safe; no usable answer at all (*TransportError, the
// error) says the same about the transport. sdk/vectors/errors.json lists
// every answer and its meaning.
package slipgate

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The only errors with a numeric code (docs/contract.md#account-errors).
const (
	APIKeyMissing         = 1020
	InvalidAPIKey         = 1021
	UserNotFound          = 1022
	InsufficientFund      = 1023
	IPNotAllowed          = 1024
	ReceiverNotRegistered = 1025
	// ReferenceConflict: CreatePaymentRequest only (HTTP 409), the reference was used for another amount, receiver or expiry.
	ReferenceConflict = 1026
	// RecheckLimit: too many slips of the account being re-checked (HTTP 429).
	RecheckLimit = 1027
)

// ErrorAnswer is slipgate's `status: "error"`. Kind:
//   - "account" (1020-1025): the key or the account is the problem;
//   - "verification" (HTTP 200): slip not found, bank down or slow, malformed QR;
//   - "invalid_request" (400, 404, 409, 413, 415): fix the request;
//   - "rate_limited" (429, also 1027) and "unavailable" (503): send it again later (RetryAfter);
//   - "reference_conflict" (1026): the order reference was used for another order;
//   - "server_error" (500): the bank may have said yes and the charge not be recorded:
//     MayHaveBeenCharged, look it up by RequestID before sending it again.
type ErrorAnswer struct {
	Kind       string
	HTTPStatus int
	// Code is 0 when the answer has none.
	Code    int
	Message string
	// CreditsRemaining is nil when the answer did not say (x-credits-remaining).
	CreditsRemaining *int
	// RetryAfter is nil when the answer did not say (Retry-After).
	RetryAfter *time.Duration
	RequestID  string
}

// MayHaveBeenCharged is true only for a 500: look it up by RequestID before sending it again.
func (e *ErrorAnswer) MayHaveBeenCharged() bool { return e.Kind == "server_error" }

// RetrySafe: sending the same request again cannot charge twice (nor make a duplicate check see its own first attempt).
func (e *ErrorAnswer) RetrySafe() bool { return !e.MayHaveBeenCharged() }

// RetryLater: the same request, sent again as it is (after RetryAfter), may be answered otherwise.
func (e *ErrorAnswer) RetryLater() bool {
	return e.Kind == "verification" || e.Kind == "rate_limited" || e.Kind == "unavailable"
}

func (e *ErrorAnswer) Error() string {
	if e.Code != 0 {
		return fmt.Sprintf("slipgate: %s (%d, HTTP %d)", e.Message, e.Code, e.HTTPStatus)
	}
	return fmt.Sprintf("slipgate: %s (%s, HTTP %d)", e.Message, e.Kind, e.HTTPStatus)
}

// ParseErrorAnswer reads an error answer of any route: its status, headers and JSON body.
func ParseErrorAnswer(status int, header http.Header, body []byte) (*ErrorAnswer, error) {
	var envelope struct {
		Status  string          `json:"status"`
		Code    json.RawMessage `json:"code"`
		Message json.RawMessage `json:"message"`
	}
	if err := json.Unmarshal(body, &envelope); err != nil || envelope.Status != "error" {
		return nil, &TransportError{Reason: "bad_response", Message: fmt.Sprintf("slipgate answered HTTP %d without an error body", status)}
	}
	code, _ := strconv.Atoi(string(envelope.Code))
	var message string
	_ = json.Unmarshal(envelope.Message, &message)
	kind := ""
	switch {
	case code >= APIKeyMissing && code <= ReceiverNotRegistered:
		kind = "account"
	case code == RecheckLimit:
		kind = "rate_limited"
	case code == ReferenceConflict && status == http.StatusConflict:
		kind = "reference_conflict"
	default:
		code = 0
		switch {
		case status == 200:
			kind = "verification"
		case status == 429:
			kind = "rate_limited"
		case status == 503:
			kind = "unavailable"
		case status < 500:
			kind = "invalid_request"
		default:
			kind = "server_error"
		}
	}
	return &ErrorAnswer{Kind: kind, HTTPStatus: status, Code: code, Message: message, CreditsRemaining: creditsHeader(header), RetryAfter: retryAfter(header), RequestID: header.Get("x-request-id")}, nil
}

// TransportError: no usable answer from slipgate. Reason is "timeout", "network" or "bad_response".
// A timeout may have been charged (the server may be verifying it right now):
// it is never sent again by the client, and should not be by you before looking it up.
type TransportError struct {
	Reason  string
	Message string
	// Attempts made, retries included.
	Attempts int
	// MayHaveBeenCharged: the request may have reached the server whole.
	MayHaveBeenCharged bool
	Err                error
}

func (e *TransportError) Error() string { return "slipgate: " + e.Message }
func (e *TransportError) Unwrap() error { return e.Err }

// RetrySafe: the request cannot have been charged.
func (e *TransportError) RetrySafe() bool { return !e.MayHaveBeenCharged }

var creditsPattern = regexp.MustCompile(`^[0-9]{1,15}$`)

func creditsHeader(header http.Header) *int {
	value := header.Get("x-credits-remaining")
	if !creditsPattern.MatchString(value) {
		return nil
	}
	n, err := strconv.Atoi(value)
	if err != nil {
		return nil
	}
	return &n
}

var secondsPattern = regexp.MustCompile(`^[0-9]{1,9}$`)

func retryAfter(header http.Header) *time.Duration {
	value := strings.TrimSpace(header.Get("retry-after"))
	if value == "" {
		return nil
	}
	var d time.Duration
	if secondsPattern.MatchString(value) {
		n, _ := strconv.Atoi(value)
		d = time.Duration(n) * time.Second
	} else if at, err := http.ParseTime(value); err == nil {
		d = max(0, time.Until(at))
	} else {
		return nil
	}
	return &d
}
