# What a failed call means for the shop: an error answer (ErrorAnswer, returned)
# says whether it may have been charged and whether sending it again is safe;
# no usable answer at all (SlipgateError, raised) says the same about the
# transport. sdk/vectors/errors.json lists every answer and its meaning.
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Dict, Optional

#: The only errors with a numeric code (docs/contract.md#account-errors).
API_KEY_MISSING = 1020
INVALID_API_KEY = 1021
USER_NOT_FOUND = 1022
INSUFFICIENT_FUND = 1023
IP_NOT_ALLOWED = 1024
RECEIVER_NOT_REGISTERED = 1025
#: create_payment_request only (HTTP 409): the reference was used for another amount, receiver or expiry.
REFERENCE_CONFLICT = 1026
#: Too many slips of the account being re-checked (HTTP 429).
RECHECK_LIMIT = 1027

_ACCOUNT_CODES = frozenset(range(API_KEY_MISSING, RECEIVER_NOT_REGISTERED + 1))
_CREDITS = re.compile(r"[0-9]{1,15}")


@dataclass(frozen=True)
class ErrorAnswer:
    """slipgate answered `status: "error"`. `kind`:

    - `account` (1020-1025): the key or the account is the problem;
    - `verification` (HTTP 200): slip not found, bank down or slow, malformed QR;
    - `invalid_request` (400, 404, 409, 413, 415): fix the request;
    - `rate_limited` (429, also 1027) and `unavailable` (503): send it again later (`retry_after_seconds`);
    - `reference_conflict` (1026): the order reference was used for another order;
    - `server_error` (500): the bank may have said yes and the charge not be recorded:
      `may_have_been_charged`, look it up by `request_id` before sending it again.
    """

    kind: str
    http_status: int
    message: str
    code: Optional[int] = None
    credits_remaining: Optional[int] = None
    retry_after_seconds: Optional[float] = None
    request_id: Optional[str] = None
    ok: bool = field(default=False, init=False)

    @property
    def may_have_been_charged(self) -> bool:
        return self.kind == "server_error"

    @property
    def retry_safe(self) -> bool:
        """Sending the same request again cannot charge twice (nor make a duplicate check see its own first attempt)."""
        return not self.may_have_been_charged

    @property
    def retry_later(self) -> bool:
        """The same request, sent again as it is (after retry_after_seconds), may be answered otherwise."""
        return self.kind in ("verification", "rate_limited", "unavailable")


def error_answer(status: int, headers: Dict[str, str], body: Dict[str, Any]) -> ErrorAnswer:
    """An error answer of any route as the SDK returns it (`headers` with lower-case names)."""
    code = body.get("code") if isinstance(body.get("code"), int) and not isinstance(body.get("code"), bool) else None
    if code in _ACCOUNT_CODES:
        kind = "account"
    elif code == RECHECK_LIMIT:
        kind = "rate_limited"
    elif code == REFERENCE_CONFLICT and status == 409:
        kind = "reference_conflict"
    else:
        code = None
        kind = "verification" if status == 200 else "rate_limited" if status == 429 else "unavailable" if status == 503 else "invalid_request" if status < 500 else "server_error"
    return ErrorAnswer(
        kind=kind,
        http_status=status,
        message=body.get("message") if isinstance(body.get("message"), str) else "",
        code=code,
        credits_remaining=credits_header(headers.get("x-credits-remaining")),
        retry_after_seconds=retry_after_seconds(headers.get("retry-after")),
        request_id=headers.get("x-request-id"),
    )


class SlipgateError(Exception):
    """No usable answer from slipgate. `reason`: `timeout`, `network` or `bad_response`.

    A timeout may have been charged (the server may be verifying it right
    now): it is never sent again by the client, and should not be by you
    before looking it up. A connection that was refused never reached it."""

    def __init__(self, reason: str, message: str, attempts: int, may_have_been_charged: bool = False, connected: Optional[bool] = None):
        super().__init__(message)
        self.reason = reason
        self.attempts = attempts
        # A connection that was open when it failed may have carried the whole request.
        self.may_have_been_charged = may_have_been_charged or connected is True
        self.connected = connected

    @property
    def retry_safe(self) -> bool:
        return not self.may_have_been_charged


def credits_header(value: Optional[str]) -> Optional[int]:
    return int(value) if value is not None and _CREDITS.fullmatch(value) else None


def retry_after_seconds(value: Optional[str]) -> Optional[float]:
    """Retry-After as seconds (a number of seconds, or an HTTP date); None when absent or unreadable."""
    if value is None:
        return None
    if re.fullmatch(r"[0-9]{1,9}", value.strip()):
        return float(value.strip())
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, IndexError):
        return None
