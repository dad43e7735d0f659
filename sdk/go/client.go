// Package slipgate is a small client for slipgate's public API: POST
// /api/v1/verify and the payment request routes (docs/api.md,
// docs/payments.md), standard library only. The same calls and retry rule
// as the TypeScript SDK: only what cannot have been charged is sent again.
package slipgate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

const (
	verifyPath          = "/api/v1/verify"
	paymentRequestsPath = "/api/v1/payment-requests"
	verificationsPath   = "/api/v1/verifications"
	// A slipgate answer is small JSON (a QR picture a few KiB): more is not slipgate's.
	maxAnswerBytes = 4 << 20
)

// Options of New; zero values are the defaults.
type Options struct {
	// Timeout per attempt; default 12 s (the server answers within its 10 s network budget).
	Timeout time.Duration
	// Retries: extra attempts after a refused connection, 429 and 503 (answered before anything was charged); default 2, -1 for none.
	Retries int
	// RetryDelay: the first backoff, doubled each retry with jitter; default 250 ms.
	RetryDelay time.Duration
	// MaxRetryDelay: the longest wait, also for Retry-After; default 5 s.
	MaxRetryDelay time.Duration
}

// Client of one slipgate, safe for concurrent use.
type Client struct {
	base   string
	apiKey string
	opts   Options
	http   *http.Client
}

// New: url is slipgate's public listener, e.g. https://slips.example.com.
func New(baseURL, apiKey string, opts Options) *Client {
	if opts.Timeout == 0 {
		opts.Timeout = 12 * time.Second
	}
	if opts.Retries == 0 {
		opts.Retries = 2
	} else if opts.Retries < 0 {
		opts.Retries = 0
	}
	if opts.RetryDelay == 0 {
		opts.RetryDelay = 250 * time.Millisecond
	}
	if opts.MaxRetryDelay == 0 {
		opts.MaxRetryDelay = 5 * time.Second
	}
	base := strings.TrimSuffix(strings.TrimRight(baseURL, "/"), verifyPath)
	return &Client{base: base, apiKey: apiKey, opts: opts, http: &http.Client{
		Timeout: opts.Timeout,
		// slipgate answers every route itself: a redirect is not followed (the key would go with it).
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// VerifyOptions: all opt-in (docs/api.md#checks, docs/payments.md).
type VerifyOptions struct {
	// Checks, e.g. map[string]any{"duplicate": true, "amount": "250.00"}.
	Checks map[string]any
	// PaymentRequest (pr_…) this slip should pay; the success then says whether it did.
	PaymentRequest string
	// Recheck: a slip the bank does not know yet is kept and asked again (a *PendingAnswer).
	Recheck bool
}

// Slip is what the bank confirmed. RawData is the bank's record, passed through unchanged.
type Slip struct {
	Amount                    float64         `json:"amount"`
	DateTime                  string          `json:"dateTime"`
	Timestamp                 int64           `json:"timestamp"`
	TransactionID             string          `json:"transactionId"`
	SenderBankAccountNumber   string          `json:"senderBankAccountNumber"`
	SenderName                string          `json:"senderName"`
	SenderNameEN              string          `json:"senderNameEN"`
	SenderBank                string          `json:"senderBank"`
	SenderBankCode            string          `json:"senderBankCode"`
	ReceiverBankAccountNumber string          `json:"receiverBankAccountNumber"`
	ReceiverName              string          `json:"receiverName"`
	ReceiverNameEN            string          `json:"receiverNameEN"`
	ReceiverBank              string          `json:"receiverBank"`
	ReceiverBankCode          string          `json:"receiverBankCode"`
	ReceiverPromptpay         string          `json:"receiverPromptpay"`
	ReceiverProxyType         string          `json:"receiverProxyType"`
	RawData                   json.RawMessage `json:"rawData"`
}

// PaymentVerdict: whether the slip paid the request it was sent for, or why not (Reason).
type PaymentVerdict struct {
	ID             string `json:"id"`
	Status         string `json:"status"`
	Reason         string `json:"reason,omitempty"`
	OtherRequestID string `json:"otherRequestId,omitempty"`
}

// Verified: the bank confirmed the slip and one credit was charged.
type Verified struct {
	HTTPStatus int
	Data       Slip
	Message    string
	QRCode     string
	RequestID  string
	// CreditsRemaining after this charge; nil when the answer did not say.
	CreditsRemaining *int
	// Checks asked for (and the receiver policy's), by name: each has "passed".
	Checks map[string]map[string]any
	// PaymentRequest: only when verified with VerifyOptions.PaymentRequest.
	PaymentRequest *PaymentVerdict
}

// PendingAnswer (HTTP 202, only with PaymentRequest or Recheck): the bank does
// not know the slip yet. Nothing charged; read it later with GetVerification.
type PendingAnswer struct {
	VerificationID   string
	Message          string
	RequestID        string
	CreditsRemaining *int
}

func (p *PendingAnswer) Error() string {
	return "slipgate: pending, the bank has not shown this transfer yet (" + p.VerificationID + ")"
}

// Verify a slip by its QR text. The error is an *ErrorAnswer (slipgate
// answered status "error"), a *PendingAnswer, or a *TransportError.
func (c *Client) Verify(ctx context.Context, qrcode string, opts *VerifyOptions) (*Verified, error) {
	body := map[string]any{"qrcode": qrcode}
	if opts != nil {
		if opts.Checks != nil {
			body["checks"] = opts.Checks
		}
		if opts.PaymentRequest != "" {
			body["paymentRequest"] = opts.PaymentRequest
		}
		if opts.Recheck {
			body["recheck"] = true
		}
	}
	encoded, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("slipgate: the checks cannot be sent as JSON: %w", err)
	}
	return c.verify(ctx, c.base+verifyPath, "application/json", encoded)
}

// VerifyImage verifies a slip by its picture's bytes (JPEG, PNG, WebP), sent as they are; slipgate reads the QR.
func (c *Client) VerifyImage(ctx context.Context, picture []byte, opts *VerifyOptions) (*Verified, error) {
	query := url.Values{}
	if opts != nil {
		if opts.PaymentRequest != "" {
			query.Set("paymentRequest", opts.PaymentRequest)
		}
		if opts.Checks != nil {
			checks, err := json.Marshal(opts.Checks)
			if err != nil {
				return nil, fmt.Errorf("slipgate: the checks cannot be sent as JSON: %w", err)
			}
			query.Set("checks", string(checks))
		}
	}
	target := c.base + verifyPath
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	return c.verify(ctx, target, pictureType(picture), picture)
}

func (c *Client) verify(ctx context.Context, target, contentType string, body []byte) (*Verified, error) {
	for attempt := 1; ; attempt++ {
		status, header, raw, err := c.send(ctx, http.MethodPost, target, contentType, body, attempt)
		if err != nil {
			var transport *TransportError
			if errors.As(err, &transport) && transport.Reason == "network" && !transport.MayHaveBeenCharged && attempt <= c.opts.Retries {
				if err := c.sleep(ctx, attempt, nil); err != nil {
					return nil, err
				}
				continue
			}
			return nil, err
		}
		// 429 and 503 are answered before any verification: nothing was charged.
		if (status == 429 || status == 503) && attempt <= c.opts.Retries {
			if err := c.sleep(ctx, attempt, retryAfter(header)); err != nil {
				return nil, err
			}
			continue
		}
		return verifyResult(status, header, raw, attempt)
	}
}

func verifyResult(status int, header http.Header, raw []byte, attempts int) (*Verified, error) {
	var body struct {
		Status         string                    `json:"status"`
		Data           *Slip                     `json:"data"`
		Message        string                    `json:"message"`
		QRCode         string                    `json:"qrcode"`
		Checks         map[string]map[string]any `json:"checks"`
		PaymentRequest *PaymentVerdict           `json:"paymentRequest"`
		VerificationID string                    `json:"verificationId"`
	}
	// An unreadable 200 (or 5xx) may have been a success: it is not known.
	unreadable := &TransportError{Reason: "bad_response", Message: fmt.Sprintf("slipgate answered HTTP %d with an unexpected body", status), Attempts: attempts, MayHaveBeenCharged: status == 200 || status >= 500}
	if err := json.Unmarshal(raw, &body); err != nil {
		unreadable.Err = err
		return nil, unreadable
	}
	switch {
	case body.Status == "error":
		answer, err := ParseErrorAnswer(status, header, raw)
		if err != nil {
			return nil, unreadable
		}
		return nil, answer
	case body.Status == "pending" && status == 202 && body.VerificationID != "":
		return nil, &PendingAnswer{VerificationID: body.VerificationID, Message: body.Message, RequestID: header.Get("x-request-id"), CreditsRemaining: creditsHeader(header)}
	case body.Status == "success" && status == 200 && body.Data != nil && body.QRCode != "":
		return &Verified{HTTPStatus: 200, Data: *body.Data, Message: body.Message, QRCode: body.QRCode, RequestID: header.Get("x-request-id"), CreditsRemaining: creditsHeader(header), Checks: body.Checks, PaymentRequest: body.PaymentRequest}, nil
	}
	return nil, unreadable
}

func (c *Client) sleep(ctx context.Context, attempt int, after *time.Duration) error {
	delay := time.Duration(float64(c.opts.RetryDelay) * float64(int(1)<<(attempt-1)) * (0.5 + rand.Float64()))
	if after != nil {
		delay = *after
	}
	delay = min(delay, c.opts.MaxRetryDelay)
	timer := time.NewTimer(delay)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return &TransportError{Reason: "aborted", Message: "aborted by the caller", Attempts: attempt, Err: ctx.Err()}
	case <-timer.C:
		return nil
	}
}

// send makes one attempt: the answer's status, headers and body, or a *TransportError.
func (c *Client) send(ctx context.Context, method, target, contentType string, body []byte, attempt int) (int, http.Header, []byte, error) {
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, reader)
	if err != nil {
		return 0, nil, nil, &TransportError{Reason: "network", Message: "the URL cannot be used: " + err.Error(), Attempts: attempt, Err: err}
	}
	req.Header.Set("accept", "application/json")
	req.Header.Set("x-api-key", c.apiKey)
	if contentType != "" {
		req.Header.Set("content-type", contentType)
	}
	res, err := c.http.Do(req)
	if err == nil {
		defer res.Body.Close()
		var raw []byte
		raw, err = io.ReadAll(io.LimitReader(res.Body, maxAnswerBytes))
		if err == nil {
			return res.StatusCode, res.Header, raw, nil
		}
	}
	var netErr net.Error
	switch {
	case ctx.Err() != nil:
		return 0, nil, nil, &TransportError{Reason: "aborted", Message: "aborted by the caller", Attempts: attempt, MayHaveBeenCharged: true, Err: err}
	case errors.As(err, &netErr) && netErr.Timeout():
		// Never sent again: the server may be verifying (and charging) it right now.
		return 0, nil, nil, &TransportError{Reason: "timeout", Message: fmt.Sprintf("no answer from slipgate within %s", c.opts.Timeout), Attempts: attempt, MayHaveBeenCharged: true, Err: err}
	case errors.Is(err, syscall.ECONNREFUSED) || isDNSError(err):
		return 0, nil, nil, &TransportError{Reason: "network", Message: "could not reach slipgate: " + err.Error(), Attempts: attempt, Err: err}
	default:
		// Reset or closed mid-answer: the request may have been verified.
		return 0, nil, nil, &TransportError{Reason: "network", Message: "the connection to slipgate failed: " + err.Error(), Attempts: attempt, MayHaveBeenCharged: true, Err: err}
	}
}

func isDNSError(err error) bool {
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// pictureType by its signature; anything else goes as a JPEG, and the server names the problem.
func pictureType(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG")):
		return "image/png"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return "image/jpeg"
}
