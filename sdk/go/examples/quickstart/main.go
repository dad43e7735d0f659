package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"

	"slipgate/sdk"
)

func main() {
	client := slipgate.New(os.Getenv("SLIPGATE_URL"), os.Getenv("SLIPGATE_API_KEY"), slipgate.Options{})
	ctx := context.Background()

	// 1. Verify the slip a customer sent (its QR text; VerifyImage takes the picture's bytes).
	verified, err := client.Verify(ctx, os.Getenv("SLIP_QR"), &slipgate.VerifyOptions{Checks: map[string]any{"duplicate": true}})
	var answer *slipgate.ErrorAnswer
	switch {
	case err == nil:
		fmt.Printf("verified %v baht, credits left: %d\n", verified.Data.Amount, *verified.CreditsRemaining)
	case errors.As(err, &answer) && answer.MayHaveBeenCharged():
		fmt.Printf("unknown outcome: look up %s before sending it again\n", answer.RequestID)
	default:
		fmt.Printf("not verified: %v\n", err)
	}

	// 2. A payment request for an order: the reference makes a repeated create safe.
	order, err := client.CreatePaymentRequest(ctx, slipgate.NewPaymentRequest{Amount: "120.00", Reference: os.Getenv("ORDER_REFERENCE")})
	if err == nil && order.Data.CheckoutURL != nil {
		fmt.Printf("pay at %s (%s)\n", *order.Data.CheckoutURL, order.Data.Status)
	}

	// 3. A webhook: check the raw body and its slipgate-signature header, then parse it.
	fmt.Println(onWebhook([]byte(os.Getenv("WEBHOOK_BODY")), os.Getenv("WEBHOOK_SIGNATURE")))
}

func onWebhook(rawBody []byte, signature string) int {
	check := slipgate.VerifyWebhookSignature(rawBody, signature, os.Getenv("WEBHOOK_SECRET"), slipgate.WebhookOptions{})
	if !check.OK {
		fmt.Printf("webhook refused: %s\n", check.Reason)
		return http.StatusBadRequest
	}
	event, err := slipgate.ParseWebhookEvent(rawBody)
	if err != nil {
		return http.StatusBadRequest
	}
	fmt.Printf("webhook %s %s\n", event.Type, event.ID)
	return http.StatusNoContent
}
