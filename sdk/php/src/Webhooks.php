<?php
// The checks a shop's server makes on what slipgate sends it: the
// slipgate-signature header of a webhook (Stripe's scheme, docs/webhooks.md)
// and the signed address the checkout page sends a paying customer back to
// (docs/payments.md#checkout-page). The same rules as the TypeScript SDK;
// sdk/vectors/ holds the cases all four SDKs agree on.
declare(strict_types=1);

namespace Slipgate;

final class Webhooks
{
    public const SIGNATURE_HEADER = 'slipgate-signature';
    public const DEFAULT_TOLERANCE_SECONDS = 300;

    /**
     * One v1 of the header (several during a secret rotation) must be the hex
     * HMAC-SHA256 of "t.rawBody" under the secret, compared in constant time
     * (hash_equals), with t within the tolerance of now. Pass the body exactly
     * as received (file_get_contents('php://input')): json_decode and
     * json_encode change the bytes.
     */
    public static function verifySignature(string $rawBody, ?string $header, string $secret, int $toleranceSeconds = self::DEFAULT_TOLERANCE_SECONDS, ?float $now = null): SignatureCheck
    {
        $parsed = self::parseHeader($header);
        if ($parsed === null) {
            return new SignatureCheck(false, null, 'malformed_header');
        }
        [$t, $candidates] = $parsed;
        $expected = hash_hmac('sha256', $t . '.' . $rawBody, $secret);
        $matched = false;
        // Every candidate is compared, so the time taken does not say which one matched.
        foreach ($candidates as $candidate) {
            $matched = hash_equals($expected, $candidate) || $matched;
        }
        if (!$matched) {
            return new SignatureCheck(false, null, 'no_matching_signature');
        }
        if (abs(($now ?? microtime(true)) - $t) > $toleranceSeconds) {
            return new SignatureCheck(false, null, 'timestamp_outside_tolerance');
        }
        return new SignatureCheck(true, $t, null);
    }

    /** @return array{0: int, 1: list<string>}|null */
    private static function parseHeader(?string $header): ?array
    {
        if ($header === null || $header === '' || strlen($header) > 4096) {
            return null;
        }
        $t = null;
        $candidates = [];
        foreach (explode(',', $header) as $part) {
            $eq = strpos($part, '=');
            if ($eq === false) {
                continue;
            }
            $key = trim(substr($part, 0, $eq));
            $value = trim(substr($part, $eq + 1));
            if ($key === 't' && preg_match('/\A[0-9]{1,12}\z/', $value) === 1) {
                $t = (int) $value;
            } elseif ($key === 'v1' && preg_match('/\A[0-9a-fA-F]{64}\z/', $value) === 1) {
                $candidates[] = strtolower($value);
            }
        }
        return $t !== null && $candidates !== [] ? [$t, $candidates] : null;
    }

    /** A verified body as an event (docs/webhooks.md); throws \UnexpectedValueException when it is not one. */
    public static function parseEvent(string $rawBody): WebhookEvent
    {
        try {
            $body = json_decode($rawBody, true, 64, JSON_THROW_ON_ERROR);
        } catch (\JsonException $e) {
            throw new \UnexpectedValueException('the webhook body is not JSON', 0, $e);
        }
        foreach (['id', 'type', 'createdAt'] as $name) {
            if (!is_array($body) || !is_string($body[$name] ?? null) || $body[$name] === '') {
                throw new \UnexpectedValueException('the webhook body lacks id, type, createdAt or data');
            }
        }
        if (!is_array($body['data'] ?? null)) {
            throw new \UnexpectedValueException('the webhook body lacks id, type, createdAt or data');
        }
        return new WebhookEvent($body['id'], $body['type'], $body['createdAt'], $body['data']);
    }

    /**
     * The address the checkout page sent a customer back to: signature must be
     * the hex HMAC-SHA256, under the account's checkout secret (`slipgate
     * payments checkout-secret <account>`), of
     * "slipgate.checkout.v1:<paymentRequest>:<status>". A valid one says that
     * request is paid; the shop's own query is not signed.
     */
    public static function verifyCheckoutReturn(string $url, string $secret): CheckoutReturnCheck
    {
        $parts = parse_url($url);
        if ($parts === false || !isset($parts['scheme'], $parts['host'])) {
            return new CheckoutReturnCheck(false, null, 'malformed');
        }
        // parse_str would keep only the last of a repeated name: every value is counted here.
        $query = [];
        foreach (explode('&', $parts['query'] ?? '') as $pair) {
            if ($pair === '') {
                continue;
            }
            [$name, $value] = array_pad(explode('=', $pair, 2), 2, '');
            $query[urldecode($name)][] = urldecode($value);
        }
        $request = $query['paymentRequest'] ?? [];
        $status = $query['status'] ?? [];
        $signature = $query['signature'] ?? [];
        if (count($request) !== 1 || count($status) !== 1 || count($signature) !== 1 || $status[0] !== 'paid' || preg_match('/\A[0-9a-f]{64}\z/', $signature[0]) !== 1) {
            return new CheckoutReturnCheck(false, null, 'malformed');
        }
        $expected = hash_hmac('sha256', "slipgate.checkout.v1:{$request[0]}:{$status[0]}", $secret);
        if (!hash_equals($expected, $signature[0])) {
            return new CheckoutReturnCheck(false, null, 'bad_signature');
        }
        return new CheckoutReturnCheck(true, $request[0], null);
    }
}
