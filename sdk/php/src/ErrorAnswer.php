<?php
// slipgate answered status "error": what it means for the shop, whether it
// may have been charged and whether sending it again is safe.
// sdk/vectors/errors.json lists every answer and its meaning.
declare(strict_types=1);

namespace Slipgate;

/**
 * kind:
 * - account (1020-1025): the key or the account is the problem;
 * - verification (HTTP 200): slip not found, bank down or slow, malformed QR;
 * - invalid_request (400, 404, 409, 413, 415): fix the request;
 * - rate_limited (429, also 1027) and unavailable (503): send it again later (retryAfterSeconds);
 * - reference_conflict (1026): the order reference was used for another order;
 * - server_error (500): the bank may have said yes and the charge not be recorded:
 *   mayHaveBeenCharged(), look it up by requestId before sending it again.
 */
final class ErrorAnswer
{
    public const API_KEY_MISSING = 1020;
    public const INVALID_API_KEY = 1021;
    public const USER_NOT_FOUND = 1022;
    public const INSUFFICIENT_FUND = 1023;
    public const IP_NOT_ALLOWED = 1024;
    public const RECEIVER_NOT_REGISTERED = 1025;
    /** createPaymentRequest only (HTTP 409): the reference was used for another amount, receiver or expiry. */
    public const REFERENCE_CONFLICT = 1026;
    /** Too many slips of the account being re-checked (HTTP 429). */
    public const RECHECK_LIMIT = 1027;

    public readonly bool $ok;

    public function __construct(
        public readonly string $kind,
        public readonly int $httpStatus,
        public readonly string $message,
        public readonly ?int $code = null,
        public readonly ?int $creditsRemaining = null,
        public readonly ?int $retryAfterSeconds = null,
        public readonly ?string $requestId = null,
    ) {
        $this->ok = false;
    }

    /** An error answer of any route: its status, headers (lower-case names) and decoded JSON body. */
    public static function of(int $status, array $headers, array $body): self
    {
        $code = is_int($body['code'] ?? null) ? $body['code'] : null;
        if ($code !== null && $code >= self::API_KEY_MISSING && $code <= self::RECEIVER_NOT_REGISTERED) {
            $kind = 'account';
        } elseif ($code === self::RECHECK_LIMIT) {
            $kind = 'rate_limited';
        } elseif ($code === self::REFERENCE_CONFLICT && $status === 409) {
            $kind = 'reference_conflict';
        } else {
            $code = null;
            $kind = match (true) {
                $status === 200 => 'verification',
                $status === 429 => 'rate_limited',
                $status === 503 => 'unavailable',
                $status < 500 => 'invalid_request',
                default => 'server_error',
            };
        }
        $message = is_string($body['message'] ?? null) ? $body['message'] : '';
        return new self($kind, $status, $message, $code, self::credits($headers['x-credits-remaining'] ?? null), self::retryAfter($headers['retry-after'] ?? null), $headers['x-request-id'] ?? null);
    }

    public function mayHaveBeenCharged(): bool
    {
        return $this->kind === 'server_error';
    }

    /** Sending the same request again cannot charge twice (nor make a duplicate check see its own first attempt). */
    public function retrySafe(): bool
    {
        return !$this->mayHaveBeenCharged();
    }

    /** The same request, sent again as it is (after retryAfterSeconds), may be answered otherwise. */
    public function retryLater(): bool
    {
        return in_array($this->kind, ['verification', 'rate_limited', 'unavailable'], true);
    }

    /** @internal */
    public static function credits(?string $value): ?int
    {
        return $value !== null && preg_match('/\A[0-9]{1,15}\z/', $value) === 1 ? (int) $value : null;
    }

    /** @internal Retry-After in seconds (a number, or an HTTP date); null when absent or unreadable. */
    public static function retryAfter(?string $value): ?int
    {
        if ($value === null) {
            return null;
        }
        $value = trim($value);
        if (preg_match('/\A[0-9]{1,9}\z/', $value) === 1) {
            return (int) $value;
        }
        $at = \DateTimeImmutable::createFromFormat(\DATE_RFC7231, $value);
        return $at === false ? null : max(0, $at->getTimestamp() - time());
    }
}
