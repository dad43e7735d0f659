// The payment request routes (docs/payments.md) and the read of a slip kept
// for re-checks. Every call can be sent again safely: a create with the same
// reference and body answers the first request, reads change nothing,
// cancelling twice is harmless; so none is retried here.
package slipgate

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// NewPaymentRequest is the create's body. Reference is your order id and the create's idempotency key.
type NewPaymentRequest struct {
	// Amount in baht: "250", "250.5" or "250.00".
	Amount    json.Number `json:"amount"`
	Reference string      `json:"reference"`
	// ExpiresInMinutes: 1-1440; 0 is the server's default, 30.
	ExpiresInMinutes int `json:"expiresInMinutes,omitempty"`
	// Receiver: a registered PromptPay receiver (rcv_…); optional when the account has exactly one.
	Receiver string `json:"receiver,omitempty"`
	// SuccessURL: where the checkout page sends the customer once paid (check it with VerifyCheckoutReturn).
	SuccessURL string `json:"successUrl,omitempty"`
}

// PayingSlip: the slip that paid a request.
type PayingSlip struct {
	VerificationID string  `json:"verificationId"`
	TransactionID  string  `json:"transactionId"`
	SendingBank    string  `json:"sendingBank"`
	Amount         float64 `json:"amount"`
	TransferredAt  string  `json:"transferredAt"`
}

// PaymentRequest as every route answers it; amounts in baht, times in Bangkok time.
type PaymentRequest struct {
	ID        string  `json:"id"`
	Reference string  `json:"reference"`
	Amount    float64 `json:"amount"`
	// RequestedAmount: under unique amounts only.
	RequestedAmount *float64 `json:"requestedAmount,omitempty"`
	Status          string   `json:"status"`
	Receiver        string   `json:"receiver"`
	// PromptPay: the EMVCo payload any Thai banking app reads.
	PromptPay string      `json:"promptpay"`
	CreatedAt string      `json:"createdAt"`
	ExpiresAt string      `json:"expiresAt"`
	PaidAt    *string     `json:"paidAt"`
	PaidBy    *PayingSlip `json:"paidBy"`
	// CheckoutURL: the request's checkout page; nil when the server has no PUBLIC_URL or SECRETS_KEY.
	CheckoutURL *string `json:"checkoutUrl"`
	SuccessURL  *string `json:"successUrl"`
}

// PaymentRequestAnswer: Created on the create that made it (201), false when the reference was used before with the same body.
type PaymentRequestAnswer struct {
	HTTPStatus int
	Created    bool
	Data       PaymentRequest
}

// CreatePaymentRequest: the same reference with another amount, receiver or expiry is an *ErrorAnswer of kind "reference_conflict" (1026).
func (c *Client) CreatePaymentRequest(ctx context.Context, input NewPaymentRequest) (*PaymentRequestAnswer, error) {
	body, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("slipgate: the payment request cannot be sent as JSON: %w", err)
	}
	return c.payment(ctx, http.MethodPost, "", body)
}

func (c *Client) GetPaymentRequest(ctx context.Context, id string) (*PaymentRequestAnswer, error) {
	return c.payment(ctx, http.MethodGet, "/"+url.PathEscape(id), nil)
}

// FindPaymentRequest: the request made with this reference (your order id).
func (c *Client) FindPaymentRequest(ctx context.Context, reference string) (*PaymentRequestAnswer, error) {
	return c.payment(ctx, http.MethodGet, "?"+url.Values{"reference": {reference}}.Encode(), nil)
}

func (c *Client) CancelPaymentRequest(ctx context.Context, id string) (*PaymentRequestAnswer, error) {
	return c.payment(ctx, http.MethodPost, "/"+url.PathEscape(id)+"/cancel", nil)
}

// PaymentRequestQR: the QR to show the customer, format "png" or "svg".
func (c *Client) PaymentRequestQR(ctx context.Context, id, format string) ([]byte, error) {
	if format != "png" && format != "svg" {
		return nil, fmt.Errorf("slipgate: the QR format is png or svg, not %q", format)
	}
	status, _, raw, err := c.send(ctx, http.MethodGet, c.base+paymentRequestsPath+"/"+url.PathEscape(id)+"/qr."+format, "", nil, 1)
	if err != nil {
		return nil, err
	}
	if status != 200 {
		return nil, &TransportError{Reason: "bad_response", Message: fmt.Sprintf("slipgate answered HTTP %d for the QR of %s", status, id), Attempts: 1}
	}
	return raw, nil
}

// GetVerification: what became of a slip answered pending (its "status": pending, success, unconfirmed, superseded or refused).
func (c *Client) GetVerification(ctx context.Context, id string) (map[string]any, error) {
	status, header, raw, err := c.send(ctx, http.MethodGet, c.base+verificationsPath+"/"+url.PathEscape(id), "", nil, 1)
	if err != nil {
		return nil, err
	}
	if status != 200 {
		answer, err := ParseErrorAnswer(status, header, raw)
		if err != nil {
			return nil, err
		}
		return nil, answer
	}
	var state map[string]any
	if err := json.Unmarshal(raw, &state); err != nil || state == nil {
		return nil, &TransportError{Reason: "bad_response", Message: "slipgate answered HTTP 200 without a JSON body", Attempts: 1, Err: err}
	}
	return state, nil
}

func (c *Client) payment(ctx context.Context, method, path string, body []byte) (*PaymentRequestAnswer, error) {
	contentType := ""
	if body != nil {
		contentType = "application/json"
	}
	status, header, raw, err := c.send(ctx, method, c.base+paymentRequestsPath+path, contentType, body, 1)
	if err != nil {
		return nil, err
	}
	var answer struct {
		Status string          `json:"status"`
		Data   *PaymentRequest `json:"data"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		return nil, &TransportError{Reason: "bad_response", Message: fmt.Sprintf("slipgate answered HTTP %d without a JSON body", status), Attempts: 1, Err: err}
	}
	if answer.Status == "error" {
		errAnswer, err := ParseErrorAnswer(status, header, raw)
		if err != nil {
			return nil, err
		}
		return nil, errAnswer
	}
	if answer.Status != "success" || answer.Data == nil {
		return nil, &TransportError{Reason: "bad_response", Message: fmt.Sprintf("slipgate answered HTTP %d with an unexpected body", status), Attempts: 1}
	}
	return &PaymentRequestAnswer{HTTPStatus: status, Created: status == 201, Data: *answer.Data}, nil
}
