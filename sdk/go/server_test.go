// The SDK against a real slipgate: `node dist/entry.cjs serve` (run `npm run
// build` in the repository first) on the sandbox network, a fresh SQLite
// database in a temporary folder, a free loopback port, accounts made with
// the CLI. A success costs one credit, each contract error, a slip picture,
// a payment request paid by a sandbox slip, the checkout page's signed
// return, a webhook delivered to a local receiver and checked by the SDK,
// and the docs example (examples/quickstart, the exact file docs/sdks.md
// shows).
package slipgate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

type server struct {
	url, dir       string
	env            []string
	entry          string
	proc           *exec.Cmd
	shop           account
	empty, gone    account
	slipQR         string
	unknownQR      string
	slipPNG        []byte
	webhookSecret  string
	checkoutSecret string
	deliveries     chan delivery
	receiverServer *http.Server
}

type account struct {
	AccountID string `json:"accountId"`
	APIKey    string `json:"apiKey"`
}

type delivery struct {
	body      []byte
	signature string
}

var (
	shared     *server
	sharedErr  error
	sharedOnce sync.Once
)

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.stop()
	}
	os.Exit(code)
}

// slipgate starts the one server of this test run, the first time a test asks.
func slipgate(t *testing.T) *server {
	t.Helper()
	// start sets shared first: a server that started but whose accounts failed is stopped by TestMain all the same.
	sharedOnce.Do(func() { _, sharedErr = start() })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

func start() (*server, error) {
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	entry := os.Getenv("SLIPGATE_ENTRY")
	if entry == "" {
		entry = filepath.Join(root, "dist", "entry.cjs")
	}
	if _, err := os.Stat(entry); err != nil {
		return nil, fmt.Errorf("%s is missing: run `npm run build` in %s first", entry, root)
	}
	s := &server{entry: entry, deliveries: make(chan delivery, 64)}
	shared = s
	var err error
	if s.dir, err = os.MkdirTemp("", "slipgate-go-sdk-"); err != nil {
		return nil, err
	}
	receiverURL, err := s.startReceiver()
	if err != nil {
		return nil, err
	}
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := probe.Addr().(*net.TCPAddr).Port
	probe.Close()
	s.env = append(os.Environ(),
		"DATABASE_URL=sqlite:"+filepath.Join(s.dir, "slipgate.db"), "DATABASE_CREATE=yes",
		fmt.Sprintf("PORT=%d", port), "ADMIN_PORT=0", fmt.Sprintf("PUBLIC_URL=http://127.0.0.1:%d", port),
		"SECRETS_KEY="+strings.Repeat("6e", 32), "WEBHOOK_ALLOW_PRIVATE=true", "WEBHOOK_POLL_MS=20",
		"API_KEY_CACHE_TTL_MS=0", "LOG_LEVEL=info", "LOG_FORMAT=json",
		// The first picture loads the decoders in a new thread: slow on a loaded test machine, not a failure.
		"IMAGE_DECODE_TIMEOUT_MS=60000")
	s.proc = exec.Command("node", entry, "serve")
	s.proc.Env, s.proc.Dir = s.env, s.dir
	stdout, err := s.proc.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.proc.Start(); err != nil {
		return nil, err
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	for s.url == "" && lines.Scan() {
		var entry struct{ Msg, PublicURL string }
		if json.Unmarshal(lines.Bytes(), &entry) == nil && entry.Msg == "slipgate listening" {
			s.url = entry.PublicURL
		}
	}
	if s.url == "" {
		return nil, fmt.Errorf("slipgate exited (%v) before listening", s.proc.Wait())
	}
	// Keep reading its log, so a full pipe never blocks it.
	go io.Copy(io.Discard, stdout)

	made, err := s.cliAll(
		[]string{"accounts", "create", "--name", "Go shop", "--credits", "20", "--json"},
		[]string{"accounts", "create", "--name", "Empty shop", "--credits", "0", "--json"},
		[]string{"accounts", "create", "--name", "Gone shop", "--credits", "5", "--json"},
		[]string{"sandbox", "qr", "--amount", "250.00", "--png", filepath.Join(s.dir, "slip.png")},
		[]string{"sandbox", "qr", "--outcome", "not-found"},
	)
	if err != nil {
		return nil, err
	}
	for i, into := range []*account{&s.shop, &s.empty, &s.gone} {
		if err := json.Unmarshal([]byte(made[i]), into); err != nil {
			return nil, err
		}
	}
	s.slipQR, s.unknownQR = strings.TrimSpace(made[3]), strings.TrimSpace(made[4])
	if s.slipPNG, err = os.ReadFile(filepath.Join(s.dir, "slip.png")); err != nil {
		return nil, err
	}
	more, err := s.cliAll(
		[]string{"webhooks", "add", s.shop.AccountID, "--url", receiverURL, "--events", "verification.succeeded", "--json"},
		[]string{"receivers", "add", s.shop.AccountID, "--promptpay", "0812345678", "--name", "SOMCHAI JAIDEE"},
		[]string{"accounts", "delete", s.gone.AccountID, "--yes"},
		[]string{"payments", "checkout-secret", s.shop.AccountID},
	)
	if err != nil {
		return nil, err
	}
	var hook struct{ Secret string }
	if err := json.Unmarshal([]byte(more[0]), &hook); err != nil {
		return nil, err
	}
	s.webhookSecret = hook.Secret
	s.checkoutSecret = strings.TrimSpace(more[3])
	return s, nil
}

// startReceiver is a merchant's webhook endpoint: every POST's raw body and signature header, as received.
func (s *server) startReceiver() (string, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	s.receiverServer = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.deliveries <- delivery{body, r.Header.Get(SignatureHeader)}
		w.WriteHeader(http.StatusNoContent)
	})}
	go s.receiverServer.Serve(listener)
	return "http://" + listener.Addr().String() + "/hooks", nil
}

// eventAbout waits for the verification.succeeded delivery of that verify answer (others are skipped).
func (s *server) eventAbout(t *testing.T, requestID string) delivery {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case d := <-s.deliveries:
			var event struct {
				Type string
				Data struct{ RequestID string }
			}
			if json.Unmarshal(d.body, &event) == nil && event.Type == "verification.succeeded" && event.Data.RequestID == requestID {
				return d
			}
		case <-timeout:
			t.Fatalf("no delivery for %s", requestID)
		}
	}
}

// cliAll runs CLI commands on this server's database at once (each is a Node start): their stdouts, in order.
func (s *server) cliAll(commands ...[]string) ([]string, error) {
	outs := make([]string, len(commands))
	errs := make([]error, len(commands))
	var wg sync.WaitGroup
	for i, args := range commands {
		wg.Add(1)
		go func(i int, args []string) {
			defer wg.Done()
			cmd := exec.Command("node", append([]string{s.entry}, args...)...)
			cmd.Env, cmd.Dir = s.env, s.dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				err = fmt.Errorf("slipgate %s: %v: %s", strings.Join(args, " "), err, stderr.String())
			}
			outs[i], errs[i] = string(out), err
		}(i, args)
	}
	wg.Wait()
	return outs, errors.Join(errs...)
}

func (s *server) stop() {
	if s.proc != nil && s.proc.Process != nil {
		s.proc.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { s.proc.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			s.proc.Process.Kill()
		}
	}
	if s.receiverServer != nil {
		s.receiverServer.Close()
	}
	os.RemoveAll(s.dir)
}

func asAnswer(t *testing.T, err error) *ErrorAnswer {
	t.Helper()
	var answer *ErrorAnswer
	if !errors.As(err, &answer) {
		t.Fatalf("want an error answer, got %v", err)
	}
	return answer
}

func TestSuccessCostsOneCreditAndAFailureNone(t *testing.T) {
	s := slipgate(t)
	client, ctx := New(s.url, s.shop.APIKey, Options{}), context.Background()
	_, err := client.Verify(ctx, s.unknownQR, nil)
	before := asAnswer(t, err)
	if before.Kind != "verification" || before.HTTPStatus != 200 || before.Code != 0 || before.MayHaveBeenCharged() || !before.RetrySafe() || before.CreditsRemaining == nil {
		t.Fatalf("not found: %+v", before)
	}
	verified, err := client.Verify(ctx, s.slipQR, &VerifyOptions{Checks: map[string]any{"amount": "250.00"}})
	if err != nil {
		t.Fatal(err)
	}
	if verified.Data.Amount != 250 || verified.QRCode != s.slipQR || verified.Checks["amount"]["passed"] != true || !json.Valid(verified.Data.RawData) {
		t.Fatalf("verified: %+v", verified)
	}
	if *verified.CreditsRemaining != *before.CreditsRemaining-1 {
		t.Fatalf("credits %d after %d", *verified.CreditsRemaining, *before.CreditsRemaining)
	}
	_, err = client.Verify(ctx, s.unknownQR, nil)
	if after := asAnswer(t, err); *after.CreditsRemaining != *verified.CreditsRemaining {
		t.Fatalf("a failure cost a credit: %d then %d", *verified.CreditsRemaining, *after.CreditsRemaining)
	}
}

func TestEachContractError(t *testing.T) {
	s := slipgate(t)
	for _, c := range []struct {
		key          string
		code, status int
		message      string
	}{
		{"", APIKeyMissing, 401, "api key is missing"},
		{"slip_not_a_key_of_this_server", InvalidAPIKey, 401, "invalid api key"},
		{s.gone.APIKey, UserNotFound, 400, "user not found"},
		{s.empty.APIKey, InsufficientFund, 400, "insufficient fund"},
	} {
		_, err := New(s.url, c.key, Options{}).Verify(context.Background(), s.slipQR, nil)
		answer := asAnswer(t, err)
		if answer.Kind != "account" || answer.Code != c.code || answer.HTTPStatus != c.status || answer.Message != c.message || answer.MayHaveBeenCharged() || answer.RetryLater() {
			t.Errorf("%d: %+v", c.code, answer)
		}
	}
	_, err := New(s.url, s.empty.APIKey, Options{}).Verify(context.Background(), s.slipQR, nil)
	if credits := asAnswer(t, err).CreditsRemaining; credits == nil || *credits != 0 {
		t.Errorf("1023 credits: %v", credits)
	}
}

func TestPicture(t *testing.T) {
	s := slipgate(t)
	client := New(s.url, s.shop.APIKey, Options{})
	verified, err := client.VerifyImage(context.Background(), s.slipPNG, nil)
	if err != nil {
		t.Fatal(err)
	}
	if verified.QRCode != s.slipQR || verified.Data.Amount != 250 {
		t.Fatalf("picture: %+v", verified)
	}
	_, err = client.VerifyImage(context.Background(), []byte("\x89PNG\r\n\x1a\n not a picture"), nil)
	if answer := asAnswer(t, err); answer.MayHaveBeenCharged() {
		t.Fatalf("unreadable picture: %+v", answer)
	}
}

func TestPaymentRequestPaidBySandboxSlip(t *testing.T) {
	s := slipgate(t)
	client, ctx := New(s.url, s.shop.APIKey, Options{}), context.Background()
	reference := fmt.Sprintf("order-go-%d", time.Now().UnixNano())
	made, err := client.CreatePaymentRequest(ctx, NewPaymentRequest{Amount: "120.00", Reference: reference, SuccessURL: "https://shop.example/thanks"})
	if err != nil {
		t.Fatal(err)
	}
	if made.HTTPStatus != 201 || !made.Created || made.Data.Status != "pending" || made.Data.Amount != 120 || made.Data.CheckoutURL == nil || !strings.HasPrefix(*made.Data.CheckoutURL, s.url+"/checkout/"+made.Data.ID+"/") {
		t.Fatalf("made: %+v", made)
	}
	again, err := client.CreatePaymentRequest(ctx, NewPaymentRequest{Amount: "120", Reference: reference, SuccessURL: "https://shop.example/thanks"})
	if err != nil || again.HTTPStatus != 200 || again.Created || again.Data.ID != made.Data.ID {
		t.Fatalf("again: %+v %v", again, err)
	}
	_, err = client.CreatePaymentRequest(ctx, NewPaymentRequest{Amount: "99", Reference: reference})
	if reused := asAnswer(t, err); reused.Kind != "reference_conflict" || reused.Code != ReferenceConflict || reused.HTTPStatus != 409 {
		t.Fatalf("reused: %+v", reused)
	}
	if found, err := client.FindPaymentRequest(ctx, reference); err != nil || found.Data.ID != made.Data.ID {
		t.Fatalf("found: %+v %v", found, err)
	}
	if png, err := client.PaymentRequestQR(ctx, made.Data.ID, "png"); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("qr: %v", err)
	}
	pays, err := s.cliAll([]string{"sandbox", "qr", "--pays", made.Data.ID})
	if err != nil {
		t.Fatal(err)
	}
	paid, err := client.Verify(ctx, strings.TrimSpace(pays[0]), &VerifyOptions{PaymentRequest: made.Data.ID})
	if err != nil {
		t.Fatal(err)
	}
	if paid.PaymentRequest == nil || *paid.PaymentRequest != (PaymentVerdict{ID: made.Data.ID, Status: "paid"}) {
		t.Fatalf("paid: %+v", paid.PaymentRequest)
	}
	if read, err := client.GetPaymentRequest(ctx, made.Data.ID); err != nil || read.Data.Status != "paid" || read.Data.PaidBy == nil || read.Data.PaidBy.Amount != 120 {
		t.Fatalf("read: %+v %v", read, err)
	}
	if _, err := client.CancelPaymentRequest(ctx, made.Data.ID); asAnswer(t, err).HTTPStatus != 409 {
		t.Fatalf("cancel paid: %v", err)
	}
	other, err := client.CreatePaymentRequest(ctx, NewPaymentRequest{Amount: "5", Reference: reference + "-b", ExpiresInMinutes: 10})
	if err != nil {
		t.Fatal(err)
	}
	if cancelled, err := client.CancelPaymentRequest(ctx, other.Data.ID); err != nil || cancelled.Data.Status != "cancelled" {
		t.Fatalf("cancel: %+v %v", cancelled, err)
	}
	_, err = client.GetPaymentRequest(ctx, "pr_"+strings.Repeat("0", 32))
	if missing := asAnswer(t, err); missing.Kind != "invalid_request" || missing.HTTPStatus != 404 {
		t.Fatalf("missing: %+v", missing)
	}
}

func TestCheckoutReturnSignedByTheServer(t *testing.T) {
	s := slipgate(t)
	made, err := New(s.url, s.shop.APIKey, Options{}).CreatePaymentRequest(context.Background(), NewPaymentRequest{Amount: "80.00", Reference: fmt.Sprintf("order-go-%d", time.Now().UnixNano()), SuccessURL: "https://shop.example/thanks?order=7"})
	if err != nil {
		t.Fatal(err)
	}
	picture := filepath.Join(s.dir, made.Data.ID+".png")
	if _, err := s.cliAll([]string{"sandbox", "qr", "--pays", made.Data.ID, "--png", picture}); err != nil {
		t.Fatal(err)
	}
	// The customer uploads the slip on the checkout page, which sends them back to the shop, signed.
	var form bytes.Buffer
	parts := multipart.NewWriter(&form)
	file, _ := parts.CreateFormFile("slip", "slip.png")
	png, _ := os.ReadFile(picture)
	file.Write(png)
	parts.Close()
	noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirects.Post(*made.Data.CheckoutURL, parts.FormDataContentType(), &form)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	back := res.Header.Get("location")
	if res.StatusCode != 303 || !strings.HasPrefix(back, "https://shop.example/thanks?order=7&") {
		t.Fatalf("upload: %d %q", res.StatusCode, back)
	}
	if check := VerifyCheckoutReturn(back, s.checkoutSecret); !check.OK || check.PaymentRequest != made.Data.ID || check.Status != "paid" {
		t.Fatalf("return refused: %+v", check)
	}
	if check := VerifyCheckoutReturn(back, "cks_"+strings.Repeat("x", 43)); check.Reason != "bad_signature" {
		t.Fatalf("another secret: %+v", check)
	}
	if check := VerifyCheckoutReturn(strings.Replace(back, made.Data.ID, "pr_"+strings.Repeat("0", 32), 1), s.checkoutSecret); check.Reason != "bad_signature" {
		t.Fatalf("another request: %+v", check)
	}
}

func TestWebhookDeliveredAndChecked(t *testing.T) {
	s := slipgate(t)
	verified, err := New(s.url, s.shop.APIKey, Options{}).Verify(context.Background(), s.slipQR, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := s.eventAbout(t, verified.RequestID)
	if check := VerifyWebhookSignature(d.body, d.signature, s.webhookSecret, WebhookOptions{}); !check.OK {
		t.Fatalf("delivery refused: %s", check.Reason)
	}
	event, err := ParseWebhookEvent(d.body)
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Amount        float64
		TransactionID string
	}
	if err := json.Unmarshal(event.Data, &data); err != nil || event.Type != "verification.succeeded" || data.Amount != 250 || data.TransactionID != verified.Data.TransactionID {
		t.Fatalf("event: %+v %+v %v", event, data, err)
	}
	tampered := bytes.Replace(d.body, []byte(`"amount":250`), []byte(`"amount":2500`), 1)
	if bytes.Equal(tampered, d.body) {
		t.Fatal("nothing tampered")
	}
	if check := VerifyWebhookSignature(tampered, d.signature, s.webhookSecret, WebhookOptions{}); check.Reason != "no_matching_signature" {
		t.Fatalf("tampered: %+v", check)
	}
	if check := VerifyWebhookSignature(d.body, d.signature, "whsec_"+strings.Repeat("x", 43), WebhookOptions{}); check.Reason != "no_matching_signature" {
		t.Fatalf("wrong secret: %+v", check)
	}
}

func TestDocsExample(t *testing.T) {
	s := slipgate(t)
	verified, err := New(s.url, s.shop.APIKey, Options{}).Verify(context.Background(), s.slipQR, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := s.eventAbout(t, verified.RequestID)
	run := func(body string) string {
		cmd := exec.Command("go", "run", "./examples/quickstart")
		cmd.Env = append(os.Environ(), "SLIPGATE_URL="+s.url, "SLIPGATE_API_KEY="+s.shop.APIKey, "SLIP_QR="+s.slipQR,
			fmt.Sprintf("ORDER_REFERENCE=order-go-example-%d", time.Now().UnixNano()), "WEBHOOK_SECRET="+s.webhookSecret,
			"WEBHOOK_BODY="+body, "WEBHOOK_SIGNATURE="+d.signature)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("the example: %v", err)
		}
		return string(out)
	}
	out := run(string(d.body))
	for _, want := range []string{`verified 250 baht, credits left: \d+\n`, `pay at ` + regexp.QuoteMeta(s.url) + `/checkout/pr_[0-9a-f]+/\S+ \(pending\)\n`, `webhook verification.succeeded evt_`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("the example printed %q, not %s", out, want)
		}
	}
	if refused := run(strings.Replace(string(d.body), `"amount":250`, `"amount":2500`, 1)); !strings.Contains(refused, "webhook refused: no_matching_signature") {
		t.Errorf("the example took a tampered body: %q", refused)
	}
}
