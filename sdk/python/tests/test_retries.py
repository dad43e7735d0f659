# What the client sends again, against a real local HTTP server that answers
# as each case says: 503 and 429 (answered before anything was charged) are
# sent again, a 500 and a timeout (either may have been charged) never are.
import json
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from slipgate import Client, ErrorAnswer, SlipgateError


class Answering:
    def __init__(self, answers):
        self.answers = list(answers)
        self.requests = 0
        self.release = threading.Event()
        answering = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("content-length", "0")))
                answering.requests += 1
                status, headers, body = answering.answers[min(answering.requests, len(answering.answers)) - 1]
                if status is None:
                    answering.release.wait(10)
                    return
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-type", "application/json")
                self.end_headers()
                self.wfile.write(json.dumps(body).encode())

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


NOT_FOUND = (200, {"x-credits-remaining": "4"}, {"status": "error", "message": "slip not found: transaction not found"})


class Retries(unittest.TestCase):
    def answering(self, *answers):
        server = Answering(answers)
        self.addCleanup(server.close)
        return server

    def test_503_and_429_are_sent_again(self):
        server = self.answering((503, {"retry-after": "0"}, {"status": "error", "message": "busy"}), (429, {"retry-after": "0"}, {"status": "error", "message": "slow down"}), NOT_FOUND)
        answer = Client(server.url, "slip_k", retry_delay=0.01).verify("qr")
        self.assertEqual((answer.kind, answer.credits_remaining, server.requests), ("verification", 4, 3))

    def test_retries_run_out(self):
        server = self.answering((503, {"retry-after": "0"}, {"status": "error", "message": "busy"}))
        answer = Client(server.url, "slip_k", retries=1).verify("qr")
        self.assertEqual((answer.kind, answer.retry_later, server.requests), ("unavailable", True, 2))

    def test_a_500_is_not_sent_again(self):
        server = self.answering((500, {}, {"status": "error", "message": "may have been charged"}), NOT_FOUND)
        answer = Client(server.url, "slip_k").verify("qr")
        self.assertIsInstance(answer, ErrorAnswer)
        self.assertEqual((answer.kind, answer.may_have_been_charged, answer.retry_safe, server.requests), ("server_error", True, False, 1))

    def test_a_timeout_is_not_sent_again(self):
        server = self.answering((None, {}, {}), NOT_FOUND)
        with self.assertRaises(SlipgateError) as raised:
            Client(server.url, "slip_k", timeout=0.3).verify("qr")
        self.assertEqual((raised.exception.reason, raised.exception.may_have_been_charged, raised.exception.retry_safe, server.requests), ("timeout", True, False, 1))

    def test_a_refused_connection_never_reached_it(self):
        server = self.answering(NOT_FOUND)
        url = server.url
        server.close()
        with self.assertRaises(SlipgateError) as raised:
            Client(url, "slip_k", retries=1, retry_delay=0.01).verify("qr")
        self.assertEqual((raised.exception.reason, raised.exception.may_have_been_charged, raised.exception.attempts), ("network", False, 2))


if __name__ == "__main__":
    unittest.main()
