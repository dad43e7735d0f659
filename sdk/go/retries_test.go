// What the client sends again, against a real local HTTP server that answers
// as each case says: 503 and 429 (answered before anything was charged) are
// sent again, a 500 and a timeout (either may have been charged) never are.
package slipgate

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

type reply struct {
	status  int
	headers map[string]string
	body    string
	hang    bool
}

func answering(t *testing.T, replies ...reply) (*httptest.Server, *atomic.Int32) {
	var requests atomic.Int32
	release := make(chan struct{})
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(requests.Add(1))
		a := replies[min(n, len(replies))-1]
		if a.hang {
			<-release
			return
		}
		for name, value := range a.headers {
			w.Header().Set(name, value)
		}
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(a.status)
		w.Write([]byte(a.body))
	}))
	t.Cleanup(func() { close(release); server.Close() })
	return server, &requests
}

var notFound = reply{status: 200, headers: map[string]string{"x-credits-remaining": "4"}, body: `{"status":"error","message":"slip not found: transaction not found"}`}

func TestRetries503And429(t *testing.T) {
	server, requests := answering(t, reply{status: 503, headers: map[string]string{"retry-after": "0"}, body: `{"status":"error","message":"busy"}`}, reply{status: 429, headers: map[string]string{"retry-after": "0"}, body: `{"status":"error","message":"slow down"}`}, notFound)
	_, err := New(server.URL, "slip_k", Options{RetryDelay: time.Millisecond}).Verify(context.Background(), "qr", nil)
	if answer := asAnswer(t, err); answer.Kind != "verification" || *answer.CreditsRemaining != 4 || requests.Load() != 3 {
		t.Fatalf("%+v after %d requests", answer, requests.Load())
	}
}

func TestRetriesRunOut(t *testing.T) {
	server, requests := answering(t, reply{status: 503, headers: map[string]string{"retry-after": "0"}, body: `{"status":"error","message":"busy"}`})
	_, err := New(server.URL, "slip_k", Options{Retries: 1}).Verify(context.Background(), "qr", nil)
	if answer := asAnswer(t, err); answer.Kind != "unavailable" || !answer.RetryLater() || requests.Load() != 2 {
		t.Fatalf("%+v after %d requests", answer, requests.Load())
	}
}

func TestA500IsNotSentAgain(t *testing.T) {
	server, requests := answering(t, reply{status: 500, body: `{"status":"error","message":"may have been charged"}`}, notFound)
	_, err := New(server.URL, "slip_k", Options{}).Verify(context.Background(), "qr", nil)
	if answer := asAnswer(t, err); answer.Kind != "server_error" || !answer.MayHaveBeenCharged() || answer.RetrySafe() || requests.Load() != 1 {
		t.Fatalf("%+v after %d requests", answer, requests.Load())
	}
}

func TestATimeoutIsNotSentAgain(t *testing.T) {
	server, requests := answering(t, reply{hang: true}, notFound)
	_, err := New(server.URL, "slip_k", Options{Timeout: 300 * time.Millisecond}).Verify(context.Background(), "qr", nil)
	var transport *TransportError
	if !errors.As(err, &transport) || transport.Reason != "timeout" || !transport.MayHaveBeenCharged || transport.RetrySafe() || requests.Load() != 1 {
		t.Fatalf("%v after %d requests", err, requests.Load())
	}
}

func TestARefusedConnectionNeverReachedIt(t *testing.T) {
	server := httptest.NewServer(http.NotFoundHandler())
	address := server.URL
	server.Close()
	_, err := New(address, "slip_k", Options{Retries: 1, RetryDelay: time.Millisecond}).Verify(context.Background(), "qr", nil)
	var transport *TransportError
	if !errors.As(err, &transport) || transport.Reason != "network" || transport.MayHaveBeenCharged || transport.Attempts != 2 {
		t.Fatalf("%+v", err)
	}
}
