# The shared vectors (sdk/vectors/, made by scripts/sdk-vectors.ts with the
# server's own code): every case gives its expected answer here as in the
# TypeScript, PHP and Go SDKs, and a tampered one is refused.
import json
import unittest
from pathlib import Path

from slipgate import verify_checkout_return, verify_webhook_signature
from slipgate.errors import error_answer

VECTORS = Path(__file__).resolve().parents[2] / "vectors"


def cases(name):
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))["cases"]


class WebhookVectors(unittest.TestCase):
    def test_every_case(self):
        for case in cases("webhooks.json"):
            with self.subTest(case["name"]):
                header = case["headers"]["slipgate-signature"]
                for body in (case["body"], case["body"].encode("utf-8")):
                    got = verify_webhook_signature(body, header, case["secret"], tolerance_seconds=case["toleranceSeconds"], now=case["now"])
                    want = case["expect"]
                    self.assertEqual(got.ok, want["ok"])
                    self.assertEqual(got.timestamp, want.get("timestamp"))
                    self.assertEqual(got.reason, want.get("reason"))

    def test_tampered_cases_are_there_and_refused(self):
        names = {case["name"]: case for case in cases("webhooks.json")}
        for name in ("tampered body", "wrong secret", "stale timestamp", "rotation, neither secret"):
            self.assertFalse(names[name]["expect"]["ok"])
        self.assertEqual(names["rotation, the new secret"]["headers"]["slipgate-signature"].count("v1="), 2)


class CheckoutReturnVectors(unittest.TestCase):
    def test_every_case(self):
        for case in cases("checkout-return.json"):
            with self.subTest(case["name"]):
                got = verify_checkout_return(case["url"], case["secret"])
                want = case["expect"]
                self.assertEqual((got.ok, got.payment_request, got.status, got.reason), (want["ok"], want.get("paymentRequest"), want.get("status"), want.get("reason")))


class ErrorVectors(unittest.TestCase):
    def test_every_answer_means_what_the_vector_says(self):
        for case in cases("errors.json"):
            with self.subTest(case["name"]):
                got = error_answer(case["httpStatus"], case["headers"], json.loads(case["body"]))
                want = case["expect"]
                self.assertEqual(
                    (got.kind, got.code, got.message, got.credits_remaining, got.retry_after_seconds, got.may_have_been_charged, got.retry_safe, got.retry_later),
                    (want["kind"], want["code"], want["message"], want["creditsRemaining"], want["retryAfterSeconds"], want["mayHaveBeenCharged"], want["retrySafe"], want["retryLater"]),
                )


if __name__ == "__main__":
    unittest.main()
