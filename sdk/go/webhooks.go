// The checks a shop's server makes on what slipgate sends it: the
// slipgate-signature header of a webhook (Stripe's scheme, docs/webhooks.md)
// and the signed address the checkout page sends a paying customer back to
// (docs/payments.md#checkout-page). The same rules as the TypeScript SDK;
// sdk/vectors/ holds the cases all four SDKs agree on.
package slipgate

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader is the header every webhook delivery is signed in.
const SignatureHeader = "slipgate-signature"

// DefaultTolerance is how far a signature's timestamp may be from the receiver's clock.
const DefaultTolerance = 300 * time.Second

var (
	timestampPattern = regexp.MustCompile(`^[0-9]{1,12}$`)
	v1Pattern        = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)
	checkoutPattern  = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// SignatureCheck is OK with the signed Timestamp, or why not (Reason):
// "malformed_header", "no_matching_signature" or "timestamp_outside_tolerance".
type SignatureCheck struct {
	OK        bool
	Timestamp int64
	Reason    string
}

// WebhookOptions: a zero Tolerance is DefaultTolerance, a zero Now is time.Now().
type WebhookOptions struct {
	Tolerance time.Duration
	Now       time.Time
}

// VerifyWebhookSignature checks one delivery: one v1 of the header (several
// during a secret rotation) must be the hex HMAC-SHA256 of "t.rawBody" under
// the secret, compared in constant time, with t within the tolerance of now.
// Pass the body exactly as received: re-encoding the JSON changes the bytes.
func VerifyWebhookSignature(rawBody []byte, header, secret string, opts WebhookOptions) SignatureCheck {
	t, candidates, ok := parseSignatureHeader(header)
	if !ok {
		return SignatureCheck{Reason: "malformed_header"}
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(t, 10) + "."))
	mac.Write(rawBody)
	expected := mac.Sum(nil)
	matched := false
	// Every candidate is compared, so the time taken does not say which one matched.
	for _, candidate := range candidates {
		if hmac.Equal(candidate, expected) {
			matched = true
		}
	}
	if !matched {
		return SignatureCheck{Reason: "no_matching_signature"}
	}
	tolerance, now := opts.Tolerance, opts.Now
	if tolerance == 0 {
		tolerance = DefaultTolerance
	}
	if now.IsZero() {
		now = time.Now()
	}
	if math.Abs(float64(now.UnixMilli())/1000-float64(t)) > tolerance.Seconds() {
		return SignatureCheck{Reason: "timestamp_outside_tolerance"}
	}
	return SignatureCheck{OK: true, Timestamp: t}
}

func parseSignatureHeader(header string) (int64, [][]byte, bool) {
	if header == "" || len(header) > 4096 {
		return 0, nil, false
	}
	t := int64(-1)
	var candidates [][]byte
	for _, part := range strings.Split(header, ",") {
		key, value, found := strings.Cut(part, "=")
		if !found {
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch {
		case key == "t" && timestampPattern.MatchString(value):
			t, _ = strconv.ParseInt(value, 10, 64)
		case key == "v1" && v1Pattern.MatchString(value):
			decoded, _ := hex.DecodeString(value)
			candidates = append(candidates, decoded)
		}
	}
	return t, candidates, t >= 0 && len(candidates) > 0
}

// WebhookEvent is a webhook body (docs/webhooks.md): parse it only after VerifyWebhookSignature said OK.
type WebhookEvent struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt string          `json:"createdAt"`
	Data      json.RawMessage `json:"data"`
}

// ErrNotAnEvent: the body is not an event as slipgate sends them.
var ErrNotAnEvent = errors.New("slipgate: the webhook body is not an event (id, type, createdAt, data)")

// ParseWebhookEvent reads a verified body; decode Data into the type's own struct.
func ParseWebhookEvent(rawBody []byte) (WebhookEvent, error) {
	var event WebhookEvent
	if err := json.Unmarshal(rawBody, &event); err != nil {
		return WebhookEvent{}, ErrNotAnEvent
	}
	if event.ID == "" || event.Type == "" || event.CreatedAt == "" || len(event.Data) == 0 || event.Data[0] != '{' {
		return WebhookEvent{}, ErrNotAnEvent
	}
	return event, nil
}

// CheckoutReturnCheck is OK with the paid PaymentRequest, or why not (Reason): "malformed" or "bad_signature".
type CheckoutReturnCheck struct {
	OK             bool
	PaymentRequest string
	Status         string
	Reason         string
}

// VerifyCheckoutReturn checks the address the checkout page sent a customer
// back to: signature must be the hex HMAC-SHA256, under the account's
// checkout secret (`slipgate payments checkout-secret <account>`), of
// "slipgate.checkout.v1:<paymentRequest>:<status>". A valid one says that
// request is paid; the shop's own query is not signed.
func VerifyCheckoutReturn(address, secret string) CheckoutReturnCheck {
	parsed, err := url.Parse(address)
	if err != nil || parsed.Scheme == "" || parsed.Host == "" {
		return CheckoutReturnCheck{Reason: "malformed"}
	}
	query, err := url.ParseQuery(parsed.RawQuery)
	if err != nil {
		return CheckoutReturnCheck{Reason: "malformed"}
	}
	request, status, signature := query["paymentRequest"], query["status"], query["signature"]
	if len(request) != 1 || len(status) != 1 || len(signature) != 1 || status[0] != "paid" || !checkoutPattern.MatchString(signature[0]) {
		return CheckoutReturnCheck{Reason: "malformed"}
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("slipgate.checkout.v1:" + request[0] + ":" + status[0]))
	given, _ := hex.DecodeString(signature[0])
	if !hmac.Equal(mac.Sum(nil), given) {
		return CheckoutReturnCheck{Reason: "bad_signature"}
	}
	return CheckoutReturnCheck{OK: true, PaymentRequest: request[0], Status: "paid"}
}
