# The checks a shop's server makes on what slipgate sends it: the
# `slipgate-signature` header of a webhook (Stripe's scheme,
# docs/webhooks.md) and the signed address the checkout page sends a paying
# customer back to (docs/payments.md#checkout-page). The same rules as the
# TypeScript SDK (src/client/webhooks.ts); sdk/vectors/ holds the cases all
# four SDKs agree on.
from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Union
from urllib.parse import parse_qsl, urlsplit

SIGNATURE_HEADER = "slipgate-signature"
DEFAULT_TOLERANCE_SECONDS = 300

_T = re.compile(r"[0-9]{1,12}")
_V1 = re.compile(r"[0-9a-fA-F]{64}")
_CHECKOUT_SIGNATURE = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class SignatureCheck:
    """`ok` with the signed `timestamp`, or why not: `malformed_header`, `no_matching_signature`, `timestamp_outside_tolerance`."""

    ok: bool
    timestamp: Optional[int] = None
    reason: Optional[str] = None


def verify_webhook_signature(
    raw_body: Union[bytes, str],
    header: Optional[str],
    secret: str,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: Optional[float] = None,
) -> SignatureCheck:
    """One `v1` of the header (several during a secret rotation) must be the
    hex HMAC-SHA256 of `t.raw_body` under the secret, compared in constant
    time, with `t` within the tolerance of now. Pass the body exactly as
    received: parsing and re-serialising the JSON changes the bytes."""
    parsed = _parse_header(header)
    if parsed is None:
        return SignatureCheck(False, reason="malformed_header")
    t, candidates = parsed
    body = raw_body.encode("utf-8") if isinstance(raw_body, str) else bytes(raw_body)
    expected = hmac.new(secret.encode("utf-8"), f"{t}.".encode("ascii") + body, hashlib.sha256).digest()
    # Every candidate is compared, so the time taken does not say which one matched.
    matches = [hmac.compare_digest(bytes.fromhex(v1), expected) for v1 in candidates]
    if not any(matches):
        return SignatureCheck(False, reason="no_matching_signature")
    clock = time.time() if now is None else now
    if abs(clock - t) > tolerance_seconds:
        return SignatureCheck(False, reason="timestamp_outside_tolerance")
    return SignatureCheck(True, timestamp=t)


def _parse_header(header: Optional[str]) -> Optional[tuple]:
    if not header or len(header) > 4096:
        return None
    t: Optional[int] = None
    candidates: List[str] = []
    for part in header.split(","):
        key, eq, value = part.partition("=")
        if not eq:
            continue
        key, value = key.strip(), value.strip()
        if key == "t" and _T.fullmatch(value):
            t = int(value)
        elif key == "v1" and _V1.fullmatch(value):
            candidates.append(value.lower())
    return (t, candidates) if t is not None and candidates else None


@dataclass(frozen=True)
class WebhookEvent:
    """A webhook body (docs/webhooks.md): parse it only after verify_webhook_signature said ok."""

    id: str
    type: str
    created_at: str
    data: Dict[str, Any]


class WebhookEventError(ValueError):
    """The body is not an event as slipgate sends them."""


def parse_webhook_event(raw_body: Union[bytes, str]) -> WebhookEvent:
    try:
        body = json.loads(raw_body)
    except ValueError as err:
        raise WebhookEventError("the webhook body is not JSON") from err
    if not isinstance(body, dict):
        raise WebhookEventError("the webhook body is not a JSON object")
    fields = {name: body.get(name) for name in ("id", "type", "createdAt")}
    if not all(isinstance(value, str) and value for value in fields.values()) or not isinstance(body.get("data"), dict):
        raise WebhookEventError("the webhook body lacks id, type, createdAt or data")
    return WebhookEvent(id=fields["id"], type=fields["type"], created_at=fields["createdAt"], data=body["data"])


@dataclass(frozen=True)
class CheckoutReturnCheck:
    """`ok` with the paid `payment_request`, or why not: `malformed` or `bad_signature`."""

    ok: bool
    payment_request: Optional[str] = None
    status: Optional[str] = None
    reason: Optional[str] = None


def verify_checkout_return(url: str, secret: str) -> CheckoutReturnCheck:
    """The address the checkout page sent a customer back to: `signature`
    must be the hex HMAC-SHA256, under the account's checkout secret
    (`slipgate payments checkout-secret <account>`), of
    `slipgate.checkout.v1:<paymentRequest>:<status>`. A valid one says that
    request is paid; the shop's own query is not signed."""
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return CheckoutReturnCheck(False, reason="malformed")
    query: Dict[str, List[str]] = {}
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        query.setdefault(name, []).append(value)
    request, status, signature = (query.get(name, []) for name in ("paymentRequest", "status", "signature"))
    if len(request) != 1 or len(status) != 1 or len(signature) != 1 or status[0] != "paid" or not _CHECKOUT_SIGNATURE.fullmatch(signature[0]):
        return CheckoutReturnCheck(False, reason="malformed")
    expected = hmac.new(secret.encode("utf-8"), f"slipgate.checkout.v1:{request[0]}:{status[0]}".encode("utf-8"), hashlib.sha256).digest()
    if not hmac.compare_digest(expected, bytes.fromhex(signature[0])):
        return CheckoutReturnCheck(False, reason="bad_signature")
    return CheckoutReturnCheck(True, payment_request=request[0], status="paid")
