// The shared vectors (sdk/vectors/, made by scripts/sdk-vectors.ts with the
// server's own code): every case gives its expected answer here as in the
// TypeScript, PHP and Python SDKs, and a tampered one is refused.
package slipgate

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func readVectors[T any](t *testing.T, name string) []T {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "vectors", name))
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Cases []T }
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) == 0 {
		t.Fatalf("%s has no cases", name)
	}
	return file.Cases
}

func TestWebhookVectors(t *testing.T) {
	type want struct {
		OK        bool
		Timestamp int64
		Reason    string
	}
	cases := readVectors[struct {
		Name             string
		Secret           string
		Headers          map[string]string
		Body             string
		Now              int64
		ToleranceSeconds int64
		Expect           want
	}](t, "webhooks.json")
	refused := 0
	for _, c := range cases {
		got := VerifyWebhookSignature([]byte(c.Body), c.Headers[SignatureHeader], c.Secret, WebhookOptions{Tolerance: time.Duration(c.ToleranceSeconds) * time.Second, Now: time.Unix(c.Now, 0)})
		if (want{got.OK, got.Timestamp, got.Reason}) != c.Expect {
			t.Errorf("%s: got %+v, want %+v", c.Name, got, c.Expect)
		}
		if !c.Expect.OK {
			refused++
		}
	}
	if refused < 5 {
		t.Errorf("only %d refused cases", refused)
	}
}

func TestCheckoutReturnVectors(t *testing.T) {
	cases := readVectors[struct {
		Name   string
		Secret string
		URL    string
		Expect struct {
			OK             bool
			PaymentRequest string
			Status         string
			Reason         string
		}
	}](t, "checkout-return.json")
	for _, c := range cases {
		got := VerifyCheckoutReturn(c.URL, c.Secret)
		if got.OK != c.Expect.OK || got.PaymentRequest != c.Expect.PaymentRequest || got.Status != c.Expect.Status || got.Reason != c.Expect.Reason {
			t.Errorf("%s: got %+v, want %+v", c.Name, got, c.Expect)
		}
	}
}

func TestErrorVectors(t *testing.T) {
	cases := readVectors[struct {
		Name       string
		HTTPStatus int
		Headers    map[string]string
		Body       string
		Expect     struct {
			Kind               string
			Code               *int
			Message            string
			CreditsRemaining   *int
			RetryAfterSeconds  *int
			MayHaveBeenCharged bool
			RetrySafe          bool
			RetryLater         bool
		}
	}](t, "errors.json")
	for _, c := range cases {
		header := http.Header{}
		for name, value := range c.Headers {
			header.Set(name, value)
		}
		got, err := ParseErrorAnswer(c.HTTPStatus, header, []byte(c.Body))
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		want := c.Expect
		code := 0
		if want.Code != nil {
			code = *want.Code
		}
		if got.Kind != want.Kind || got.Code != code || got.Message != want.Message || got.MayHaveBeenCharged() != want.MayHaveBeenCharged || got.RetrySafe() != want.RetrySafe || got.RetryLater() != want.RetryLater {
			t.Errorf("%s: got %+v, want %+v", c.Name, got, want)
		}
		if (got.CreditsRemaining == nil) != (want.CreditsRemaining == nil) || (got.CreditsRemaining != nil && *got.CreditsRemaining != *want.CreditsRemaining) {
			t.Errorf("%s: credits %v, want %v", c.Name, got.CreditsRemaining, want.CreditsRemaining)
		}
		if (got.RetryAfter == nil) != (want.RetryAfterSeconds == nil) || (got.RetryAfter != nil && *got.RetryAfter != time.Duration(*want.RetryAfterSeconds)*time.Second) {
			t.Errorf("%s: retry after %v, want %v s", c.Name, got.RetryAfter, want.RetryAfterSeconds)
		}
	}
}
