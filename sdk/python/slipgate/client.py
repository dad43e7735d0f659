# A small client for slipgate's public API: POST /api/v1/verify and the
# payment request routes (docs/api.md, docs/payments.md), standard library
# only. The same calls and the same retry rule as the TypeScript SDK
# (src/client/client.ts): only what cannot have been charged is sent again.
from __future__ import annotations

import json
import random
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Union

from .errors import ErrorAnswer, SlipgateError, credits_header, error_answer, retry_after_seconds

VERIFY_PATH = "/api/v1/verify"
PAYMENT_REQUESTS_PATH = "/api/v1/payment-requests"
VERIFICATIONS_PATH = "/api/v1/verifications"


@dataclass(frozen=True)
class Verified:
    """A verified slip: one credit was charged. `checks` and `payment_request` only when asked for (or reported by the account's receiver policy)."""

    http_status: int
    data: Dict[str, Any]
    message: str
    qrcode: str
    request_id: Optional[str]
    credits_remaining: Optional[int] = None
    checks: Optional[Dict[str, Any]] = None
    payment_request: Optional[Dict[str, Any]] = None
    ok: bool = field(default=True, init=False)


@dataclass(frozen=True)
class Pending:
    """HTTP 202 (only with `payment_request` or `recheck=True`): the bank does not know the slip yet; nothing charged, read it later with get_verification."""

    http_status: int
    verification_id: str
    message: str
    request_id: Optional[str]
    credits_remaining: Optional[int] = None
    payment_request: Optional[Dict[str, Any]] = None
    ok: bool = field(default=False, init=False)


@dataclass(frozen=True)
class PaymentRequest:
    """A payment request route's success: `created` on the create that made it (201), False when the reference was used before with the same body."""

    http_status: int
    created: bool
    data: Dict[str, Any]
    ok: bool = field(default=True, init=False)

    @property
    def checkout_url(self) -> Optional[str]:
        """The request's checkout page; None when the server has no PUBLIC_URL or SECRETS_KEY."""
        return self.data.get("checkoutUrl")


@dataclass(frozen=True)
class Verification:
    """GET /api/v1/verifications/{id}: what became of a slip answered pending (`status` pending, success, unconfirmed, superseded or refused)."""

    http_status: int
    state: Dict[str, Any]
    ok: bool = field(default=True, init=False)


class Client:
    """`url` is slipgate's public listener, e.g. https://slips.example.com.

    `timeout` is per attempt, in seconds (12: the server answers within its
    10 s network budget). `retries` extra attempts are made after a refused
    connection, 429 and 503, which were answered before anything was
    charged; never after a timeout, a reset connection or a 500."""

    def __init__(self, url: str, api_key: str, timeout: float = 12.0, retries: int = 2, retry_delay: float = 0.25, max_retry_delay: float = 5.0):
        self._base = re.sub(r"/api/v1/verify$", "", url.rstrip("/"))
        self._api_key = api_key
        self._timeout = timeout
        self._retries = retries
        self._retry_delay = retry_delay
        self._max_retry_delay = max_retry_delay

    # -- verify -----------------------------------------------------------

    def verify(self, qrcode: str, checks: Optional[Mapping[str, Any]] = None, payment_request: Optional[str] = None, recheck: Optional[bool] = None) -> Union[Verified, Pending, ErrorAnswer]:
        """Verify a slip by its QR text. `checks` are the opt-in checks (docs/api.md#checks)."""
        body: Dict[str, Any] = {"qrcode": qrcode}
        if checks is not None:
            body["checks"] = dict(checks)
        if payment_request is not None:
            body["paymentRequest"] = payment_request
        if recheck is not None:
            body["recheck"] = recheck
        return self._verify(self._base + VERIFY_PATH, "application/json", json.dumps(body).encode("utf-8"))

    def verify_image(self, picture: bytes, checks: Optional[Mapping[str, Any]] = None, payment_request: Optional[str] = None) -> Union[Verified, Pending, ErrorAnswer]:
        """Verify a slip by its picture's bytes (JPEG, PNG, WebP), sent as they are; slipgate reads the QR."""
        if not isinstance(picture, (bytes, bytearray, memoryview)):
            raise TypeError("verify_image takes the picture's bytes")
        query: Dict[str, str] = {}
        if payment_request is not None:
            query["paymentRequest"] = payment_request
        if checks is not None:
            query["checks"] = json.dumps(dict(checks))
        url = self._base + VERIFY_PATH + ("?" + urllib.parse.urlencode(query) if query else "")
        return self._verify(url, _picture_type(bytes(picture)), bytes(picture))

    def _verify(self, url: str, content_type: str, body: bytes) -> Union[Verified, Pending, ErrorAnswer]:
        attempt = 0
        while True:
            attempt += 1
            try:
                status, headers, raw = self._send("POST", url, body, content_type, attempt)
            except SlipgateError as err:
                if err.reason == "network" and err.connected is False and attempt <= self._retries:
                    self._sleep(attempt, None)
                    continue
                raise
            # 429 and 503 are answered before any verification: nothing was charged.
            if status in (429, 503) and attempt <= self._retries:
                self._sleep(attempt, retry_after_seconds(headers.get("retry-after")))
                continue
            try:
                return _verify_result(status, headers, raw, attempt)
            except SlipgateError as err:
                # An unreadable 200 (or 5xx) may have been a success: it is not known.
                err.may_have_been_charged = status == 200 or status >= 500
                raise

    def _sleep(self, attempt: int, retry_after: Optional[float]) -> None:
        backoff = min(self._max_retry_delay, self._retry_delay * 2 ** (attempt - 1) * (0.5 + random.random()))
        time.sleep(min(self._max_retry_delay, retry_after) if retry_after is not None else backoff)

    # -- payment requests -------------------------------------------------
    # Each can be sent again safely: the same reference with the same body
    # answers the first request, reads change nothing, cancelling twice is harmless.

    def create_payment_request(self, amount: Union[str, int, float], reference: str, expires_in_minutes: Optional[int] = None, receiver: Optional[str] = None, success_url: Optional[str] = None) -> Union[PaymentRequest, ErrorAnswer]:
        """`reference` is your order id and the create's idempotency key: the same one with the same body answers the first
        request; with another amount, receiver or expiry, an ErrorAnswer of kind `reference_conflict` (1026)."""
        body: Dict[str, Any] = {"amount": amount, "reference": reference}
        for name, value in (("expiresInMinutes", expires_in_minutes), ("receiver", receiver), ("successUrl", success_url)):
            if value is not None:
                body[name] = value
        return self._payment("POST", "", json.dumps(body).encode("utf-8"))

    def get_payment_request(self, payment_request_id: str) -> Union[PaymentRequest, ErrorAnswer]:
        return self._payment("GET", "/" + _segment(payment_request_id))

    def find_payment_request(self, reference: str) -> Union[PaymentRequest, ErrorAnswer]:
        """The request made with this reference (your order id)."""
        return self._payment("GET", "?" + urllib.parse.urlencode({"reference": reference}))

    def cancel_payment_request(self, payment_request_id: str) -> Union[PaymentRequest, ErrorAnswer]:
        return self._payment("POST", "/" + _segment(payment_request_id) + "/cancel")

    def payment_request_qr(self, payment_request_id: str, picture_format: str = "png") -> bytes:
        """The QR to show the customer: PNG or SVG bytes."""
        if picture_format not in ("png", "svg"):
            raise ValueError("picture_format is png or svg")
        status, _headers, raw = self._send("GET", f"{self._base}{PAYMENT_REQUESTS_PATH}/{_segment(payment_request_id)}/qr.{picture_format}", None, None, 1)
        if status != 200:
            raise SlipgateError("bad_response", f"slipgate answered HTTP {status} for the QR of {payment_request_id}", 1)
        return raw

    def get_verification(self, verification_id: str) -> Union[Verification, ErrorAnswer]:
        status, headers, raw = self._send("GET", f"{self._base}{VERIFICATIONS_PATH}/{_segment(verification_id)}", None, None, 1)
        body = _json_object(status, raw, 1)
        if status != 200:
            return error_answer(status, headers, _envelope(status, body, 1))
        return Verification(http_status=200, state=body)

    def _payment(self, method: str, path: str, body: Optional[bytes] = None) -> Union[PaymentRequest, ErrorAnswer]:
        status, headers, raw = self._send(method, self._base + PAYMENT_REQUESTS_PATH + path, body, "application/json" if body is not None else None, 1)
        answer = _envelope(status, _json_object(status, raw, 1), 1)
        if answer["status"] == "error":
            return error_answer(status, headers, answer)
        if not isinstance(answer.get("data"), dict):
            raise SlipgateError("bad_response", f"slipgate answered HTTP {status} without the request", 1)
        return PaymentRequest(http_status=status, created=status == 201, data=answer["data"])

    # -- transport --------------------------------------------------------

    def _send(self, method: str, url: str, body: Optional[bytes], content_type: Optional[str], attempt: int):
        headers = {"accept": "application/json", "x-api-key": self._api_key}
        if content_type is not None:
            headers["content-type"] = content_type
        request = urllib.request.Request(url, data=body, method=method, headers=headers)
        try:
            with _OPENER.open(request, timeout=self._timeout) as res:
                return res.status, _lower(res.headers), res.read()
        except urllib.error.HTTPError as res:
            with res:
                return res.code, _lower(res.headers), res.read()
        except (socket.timeout, TimeoutError) as err:
            # Never sent again: the server may be verifying (and charging) it right now.
            raise SlipgateError("timeout", f"no answer from slipgate within {self._timeout} s", attempt, may_have_been_charged=True) from err
        except urllib.error.URLError as err:
            if isinstance(err.reason, (socket.timeout, TimeoutError)):
                raise SlipgateError("timeout", f"no answer from slipgate within {self._timeout} s", attempt, may_have_been_charged=True) from err
            refused = isinstance(err.reason, (ConnectionRefusedError, socket.gaierror))
            raise SlipgateError("network", f"could not reach slipgate: {err.reason}", attempt, connected=not refused) from err
        except (ConnectionError, OSError) as err:
            # Reset or closed mid-answer: the request may have been verified.
            raise SlipgateError("network", f"the connection to slipgate failed: {err}", attempt, connected=True) from err


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """slipgate answers every route itself: a redirect is not followed (the key would go with it)."""

    def redirect_request(self, *args, **kwargs):
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def _verify_result(status: int, headers: Dict[str, str], raw: bytes, attempts: int) -> Union[Verified, Pending, ErrorAnswer]:
    body = _envelope(status, _json_object(status, raw, attempts), attempts)
    request_id = headers.get("x-request-id")
    credits = credits_header(headers.get("x-credits-remaining"))
    message = body.get("message") if isinstance(body.get("message"), str) else ""
    if body["status"] == "error":
        return error_answer(status, headers, body)
    if body["status"] == "pending":
        if not isinstance(body.get("verificationId"), str):
            raise SlipgateError("bad_response", "slipgate answered pending without a verificationId", attempts)
        return Pending(http_status=202, verification_id=body["verificationId"], message=message, request_id=request_id, credits_remaining=credits, payment_request=body.get("paymentRequest"))
    if not isinstance(body.get("data"), dict) or not isinstance(body.get("qrcode"), str):
        raise SlipgateError("bad_response", "slipgate answered success without the slip", attempts)
    return Verified(http_status=200, data=body["data"], message=message, qrcode=body["qrcode"], request_id=request_id, credits_remaining=credits, checks=body.get("checks"), payment_request=body.get("paymentRequest"))


def _json_object(status: int, raw: bytes, attempts: int) -> Dict[str, Any]:
    try:
        body = json.loads(raw)
    except ValueError as err:
        raise SlipgateError("bad_response", f"slipgate answered HTTP {status} without a JSON body", attempts) from err
    if not isinstance(body, dict):
        raise SlipgateError("bad_response", f"slipgate answered HTTP {status} with an unexpected body", attempts)
    return body


def _envelope(status: int, body: Dict[str, Any], attempts: int) -> Dict[str, Any]:
    if body.get("status") in ("success", "error") or (body.get("status") == "pending" and status == 202):
        return body
    raise SlipgateError("bad_response", f"slipgate answered HTTP {status} with an unexpected body", attempts)


def _picture_type(b: bytes) -> str:
    """By its signature; anything else goes as a JPEG, and the server names the problem."""
    if b[:4] == b"\x89PNG":
        return "image/png"
    if len(b) >= 12 and b[:4] == b"RIFF" and b[8:12] == b"WEBP":
        return "image/webp"
    return "image/jpeg"


def _segment(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def _lower(headers) -> Dict[str, str]:
    return {name.lower(): value for name, value in headers.items()}
