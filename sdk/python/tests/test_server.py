# The SDK against a real slipgate (tests/slipgate_server.py): a success
# costs one credit, each contract error, a slip picture, a payment request
# paid by a sandbox slip, the checkout page's signed return, and a webhook delivered to a local receiver and
# checked by the SDK. Then the docs example (examples/quickstart.py, the
# exact file docs/sdks.md shows) runs against the same server.
import json
import os
import queue
import subprocess
import sys
import threading
import time
import unittest
import urllib.error
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from slipgate import (
    API_KEY_MISSING,
    INSUFFICIENT_FUND,
    INVALID_API_KEY,
    USER_NOT_FOUND,
    Client,
    ErrorAnswer,
    PaymentRequest,
    Verified,
    parse_webhook_event,
    verify_checkout_return,
    verify_webhook_signature,
)

from .slipgate_server import Slipgate

HERE = Path(__file__).resolve().parent


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Receiver:
    """A merchant's webhook endpoint: every POST's raw body and signature header, as received."""

    def __init__(self):
        self.deliveries = queue.Queue()
        deliveries = self.deliveries

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length", "0")))
                deliveries.put((raw, self.headers.get("slipgate-signature")))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def event_about(self, request_id, timeout=20):
        """The verification.succeeded delivery of that verify answer (others are skipped)."""
        until = time.monotonic() + timeout
        while True:
            raw, header = self.deliveries.get(timeout=max(0.1, until - time.monotonic()))
            event = json.loads(raw)
            if event["type"] == "verification.succeeded" and event["data"]["requestId"] == request_id:
                return raw, header


class AgainstSlipgate(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.receiver = Receiver()
        cls.slipgate = Slipgate()
        try:
            cls.make_accounts()
        except BaseException:
            # tearDownClass is not called when setUpClass fails: nothing is left running.
            cls.tearDownClass()
            raise

    @classmethod
    def make_accounts(cls):
        made = cls.slipgate.cli_all(
            ["accounts", "create", "--name", "Python shop", "--credits", "20", "--json"],
            ["accounts", "create", "--name", "Empty shop", "--credits", "0", "--json"],
            ["accounts", "create", "--name", "Gone shop", "--credits", "5", "--json"],
            ["sandbox", "qr", "--amount", "250.00", "--png", f"{cls.slipgate.dir}/slip.png"],
            ["sandbox", "qr", "--outcome", "not-found"],
        )
        cls.shop, cls.empty, cls.gone = (json.loads(out) for out in made[:3])
        cls.slip_qr, cls.unknown_qr = made[3].strip(), made[4].strip()
        cls.slip_png = Path(cls.slipgate.dir, "slip.png").read_bytes()
        account = cls.shop["accountId"]
        hook, _, _, checkout_secret = cls.slipgate.cli_all(
            ["webhooks", "add", account, "--url", cls.receiver.url, "--events", "verification.succeeded", "--json"],
            ["receivers", "add", account, "--promptpay", "0812345678", "--name", "SOMCHAI JAIDEE"],
            ["accounts", "delete", cls.gone["accountId"], "--yes"],
            ["payments", "checkout-secret", account],
        )
        cls.checkout_secret = checkout_secret.strip()
        cls.webhook_secret = json.loads(hook)["secret"]
        cls.client = Client(cls.slipgate.url, cls.shop["apiKey"])

    @classmethod
    def tearDownClass(cls):
        cls.slipgate.stop()
        cls.receiver.server.shutdown()

    def test_a_success_costs_one_credit_and_a_failure_none(self):
        before = self.client.verify(self.unknown_qr)
        self.assertIsInstance(before, ErrorAnswer)
        self.assertEqual((before.kind, before.http_status, before.code, before.may_have_been_charged, before.retry_safe), ("verification", 200, None, False, True))
        verified = self.client.verify(self.slip_qr, checks={"amount": "250.00"})
        self.assertIsInstance(verified, Verified, verified)
        self.assertEqual((verified.data["amount"], verified.qrcode, verified.checks["amount"]["passed"]), (250, self.slip_qr, True))
        self.assertEqual(verified.credits_remaining, before.credits_remaining - 1)
        after = self.client.verify(self.unknown_qr)
        self.assertEqual(after.credits_remaining, verified.credits_remaining)

    def test_each_contract_error(self):
        answers = {
            API_KEY_MISSING: Client(self.slipgate.url, "").verify(self.slip_qr),
            INVALID_API_KEY: Client(self.slipgate.url, "slip_not_a_key_of_this_server").verify(self.slip_qr),
            USER_NOT_FOUND: Client(self.slipgate.url, self.gone["apiKey"]).verify(self.slip_qr),
            INSUFFICIENT_FUND: Client(self.slipgate.url, self.empty["apiKey"]).verify(self.slip_qr),
        }
        statuses = {API_KEY_MISSING: 401, INVALID_API_KEY: 401, USER_NOT_FOUND: 400, INSUFFICIENT_FUND: 400}
        for code, answer in answers.items():
            with self.subTest(code):
                self.assertIsInstance(answer, ErrorAnswer)
                self.assertEqual((answer.kind, answer.code, answer.http_status, answer.may_have_been_charged, answer.retry_later), ("account", code, statuses[code], False, False))
        self.assertEqual(answers[INSUFFICIENT_FUND].credits_remaining, 0)
        self.assertEqual(answers[INSUFFICIENT_FUND].message, "insufficient fund")

    def test_a_picture(self):
        verified = self.client.verify_image(self.slip_png)
        self.assertIsInstance(verified, Verified, verified)
        self.assertEqual((verified.qrcode, verified.data["amount"]), (self.slip_qr, 250))
        unreadable = self.client.verify_image(b"\x89PNG\r\n\x1a\n not a picture")
        self.assertIsInstance(unreadable, ErrorAnswer)
        self.assertFalse(unreadable.may_have_been_charged)

    def test_a_payment_request_paid_by_a_sandbox_slip(self):
        reference = f"order-{uuid.uuid4().hex[:8]}"
        made = self.client.create_payment_request(amount="120.00", reference=reference, success_url="https://shop.example/thanks")
        self.assertIsInstance(made, PaymentRequest)
        self.assertEqual((made.http_status, made.created, made.data["status"], made.data["amount"]), (201, True, "pending", 120))
        self.assertTrue(made.checkout_url.startswith(f"{self.slipgate.url}/checkout/{made.data['id']}/"))
        again = self.client.create_payment_request(amount=120, reference=reference, success_url="https://shop.example/thanks")
        self.assertEqual((again.http_status, again.created, again.data["id"]), (200, False, made.data["id"]))
        reused = self.client.create_payment_request(amount=99, reference=reference)
        self.assertEqual((reused.kind, reused.code, reused.http_status), ("reference_conflict", 1026, 409))
        self.assertEqual(self.client.find_payment_request(reference).data["id"], made.data["id"])
        self.assertEqual(self.client.payment_request_qr(made.data["id"])[:4], b"\x89PNG")

        slip = self.slipgate.cli("sandbox", "qr", "--pays", made.data["id"]).strip()
        paid = self.client.verify(slip, payment_request=made.data["id"])
        self.assertIsInstance(paid, Verified)
        self.assertEqual(paid.payment_request, {"id": made.data["id"], "status": "paid"})
        self.assertEqual(self.client.get_payment_request(made.data["id"]).data["status"], "paid")
        self.assertEqual(self.client.cancel_payment_request(made.data["id"]).http_status, 409)

        other = self.client.create_payment_request(amount=5, reference=f"{reference}-b", expires_in_minutes=10)
        self.assertEqual(self.client.cancel_payment_request(other.data["id"]).data["status"], "cancelled")
        missing = self.client.get_payment_request("pr_" + "0" * 32)
        self.assertEqual((missing.kind, missing.http_status), ("invalid_request", 404))

    def test_the_checkout_return_signed_by_the_server(self):
        made = self.client.create_payment_request(amount="80.00", reference=f"order-{uuid.uuid4().hex[:8]}", success_url="https://shop.example/thanks?order=7")
        picture = Path(self.slipgate.dir, f"{made.data['id']}.png")
        self.slipgate.cli("sandbox", "qr", "--pays", made.data["id"], "--png", str(picture))
        # The customer uploads the slip on the checkout page, which sends them back to the shop, signed.
        boundary = uuid.uuid4().hex
        form = (f'--{boundary}\r\nContent-Disposition: form-data; name="slip"; filename="slip.png"\r\nContent-Type: image/png\r\n\r\n').encode() + picture.read_bytes() + f"\r\n--{boundary}--\r\n".encode()
        upload = urllib.request.Request(made.checkout_url, data=form, method="POST", headers={"content-type": f"multipart/form-data; boundary={boundary}"})
        with self.assertRaises(urllib.error.HTTPError) as redirected:
            urllib.request.build_opener(NoRedirects).open(upload, timeout=30)
        self.assertEqual(redirected.exception.code, 303)
        back = redirected.exception.headers["location"]
        self.assertTrue(back.startswith("https://shop.example/thanks?order=7&"), back)
        check = verify_checkout_return(back, self.checkout_secret)
        self.assertEqual((check.ok, check.payment_request, check.status), (True, made.data["id"], "paid"))
        self.assertEqual(verify_checkout_return(back, "cks_" + "x" * 43).reason, "bad_signature")
        self.assertEqual(verify_checkout_return(back.replace(made.data["id"], "pr_" + "0" * 32), self.checkout_secret).reason, "bad_signature")

    def test_a_webhook_delivered_and_checked(self):
        verified = self.client.verify(self.slip_qr)
        raw, header = self.receiver.event_about(verified.request_id)
        check = verify_webhook_signature(raw, header, self.webhook_secret)
        self.assertTrue(check.ok, check.reason)
        event = parse_webhook_event(raw)
        self.assertEqual((event.type, event.data["amount"], event.data["transactionId"]), ("verification.succeeded", 250, verified.data["transactionId"]))
        tampered = raw.replace(b'"amount":250', b'"amount":2500')
        self.assertNotEqual(tampered, raw)
        self.assertEqual(verify_webhook_signature(tampered, header, self.webhook_secret).reason, "no_matching_signature")
        self.assertEqual(verify_webhook_signature(raw, header, "whsec_" + "x" * 43).reason, "no_matching_signature")

    def test_the_docs_example(self):
        verified = self.client.verify(self.slip_qr)
        raw, header = self.receiver.event_about(verified.request_id)
        env = {
            **os.environ,
            "SLIPGATE_URL": self.slipgate.url,
            "SLIPGATE_API_KEY": self.shop["apiKey"],
            "SLIP_QR": self.slip_qr,
            "ORDER_REFERENCE": f"order-{uuid.uuid4().hex[:8]}",
            "WEBHOOK_SECRET": self.webhook_secret,
            "WEBHOOK_BODY": raw.decode("utf-8"),
            "WEBHOOK_SIGNATURE": header,
            "PYTHONPATH": str(HERE.parent),
        }
        out = subprocess.run([sys.executable, str(HERE.parent / "examples" / "quickstart.py")], env=env, check=True, capture_output=True, text=True).stdout
        self.assertRegex(out, r"verified 250(\.0)? baht, credits left: \d+\n")
        self.assertRegex(out, rf"pay at {self.slipgate.url}/checkout/pr_[0-9a-f]+/\S+ \(pending\)\n")
        self.assertIn("webhook verification.succeeded evt_", out)
        env["WEBHOOK_BODY"] = env["WEBHOOK_BODY"].replace('"amount":250', '"amount":2500')
        refused = subprocess.run([sys.executable, str(HERE.parent / "examples" / "quickstart.py")], env=env, capture_output=True, text=True).stdout
        self.assertIn("webhook refused: no_matching_signature", refused)


if __name__ == "__main__":
    unittest.main()
