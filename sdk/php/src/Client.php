<?php
// A small client for slipgate's public API: POST /api/v1/verify and the
// payment request routes (docs/api.md, docs/payments.md), curl and json
// only. The same calls and retry rule as the TypeScript SDK: only what
// cannot have been charged is sent again.
declare(strict_types=1);

namespace Slipgate;

final class Client
{
    private const VERIFY_PATH = '/api/v1/verify';
    private const PAYMENT_REQUESTS_PATH = '/api/v1/payment-requests';
    private const VERIFICATIONS_PATH = '/api/v1/verifications';
    /** A slipgate answer is small JSON (a QR picture a few KiB): more is not slipgate's. */
    private const MAX_ANSWER_BYTES = 4 << 20;

    private readonly string $base;

    /**
     * $url is slipgate's public listener, e.g. https://slips.example.com.
     * $timeoutSeconds is per attempt (12: the server answers within its 10 s
     * network budget). $retries extra attempts are made after a refused
     * connection, 429 and 503, which were answered before anything was
     * charged; never after a timeout, a reset connection or a 500.
     */
    public function __construct(
        string $url,
        private readonly string $apiKey,
        private readonly float $timeoutSeconds = 12.0,
        private readonly int $retries = 2,
        private readonly float $retryDelaySeconds = 0.25,
        private readonly float $maxRetryDelaySeconds = 5.0,
    ) {
        $this->base = (string) preg_replace('#/api/v1/verify$#', '', rtrim($url, '/'));
    }

    /**
     * Verify a slip by its QR text. $checks are the opt-in checks (docs/api.md#checks).
     * @param array<string, mixed>|null $checks
     */
    public function verify(string $qrcode, ?array $checks = null, ?string $paymentRequest = null, ?bool $recheck = null): Verified|Pending|ErrorAnswer
    {
        $body = ['qrcode' => $qrcode];
        if ($checks !== null) {
            $body['checks'] = (object) $checks;
        }
        if ($paymentRequest !== null) {
            $body['paymentRequest'] = $paymentRequest;
        }
        if ($recheck !== null) {
            $body['recheck'] = $recheck;
        }
        return $this->verifyAt($this->base . self::VERIFY_PATH, 'application/json', self::json($body));
    }

    /**
     * Verify a slip by its picture's bytes (JPEG, PNG, WebP), sent as they are; slipgate reads the QR.
     * @param array<string, mixed>|null $checks
     */
    public function verifyImage(string $pictureBytes, ?array $checks = null, ?string $paymentRequest = null): Verified|Pending|ErrorAnswer
    {
        $query = [];
        if ($paymentRequest !== null) {
            $query['paymentRequest'] = $paymentRequest;
        }
        if ($checks !== null) {
            $query['checks'] = self::json((object) $checks);
        }
        $url = $this->base . self::VERIFY_PATH . ($query === [] ? '' : '?' . http_build_query($query, '', '&', PHP_QUERY_RFC3986));
        return $this->verifyAt($url, self::pictureType($pictureBytes), $pictureBytes);
    }

    /**
     * $reference is your order id and the create's idempotency key: the same one with the same body answers the first
     * request; with another amount, receiver or expiry, an ErrorAnswer of kind reference_conflict (1026).
     */
    public function createPaymentRequest(string|int|float $amount, string $reference, ?int $expiresInMinutes = null, ?string $receiver = null, ?string $successUrl = null): PaymentRequest|ErrorAnswer
    {
        $body = array_filter(['amount' => $amount, 'reference' => $reference, 'expiresInMinutes' => $expiresInMinutes, 'receiver' => $receiver, 'successUrl' => $successUrl], static fn ($v) => $v !== null);
        return $this->payment('POST', '', self::json($body));
    }

    public function getPaymentRequest(string $id): PaymentRequest|ErrorAnswer
    {
        return $this->payment('GET', '/' . rawurlencode($id));
    }

    /** The request made with this reference (your order id). */
    public function findPaymentRequest(string $reference): PaymentRequest|ErrorAnswer
    {
        return $this->payment('GET', '?reference=' . rawurlencode($reference));
    }

    public function cancelPaymentRequest(string $id): PaymentRequest|ErrorAnswer
    {
        return $this->payment('POST', '/' . rawurlencode($id) . '/cancel');
    }

    /** The QR to show the customer: PNG or SVG bytes. */
    public function paymentRequestQr(string $id, string $format = 'png'): string
    {
        if ($format !== 'png' && $format !== 'svg') {
            throw new \InvalidArgumentException('the QR format is png or svg');
        }
        [$status, , $raw] = $this->send('GET', $this->base . self::PAYMENT_REQUESTS_PATH . '/' . rawurlencode($id) . '/qr.' . $format, null, null, 1);
        if ($status !== 200) {
            throw new TransportException('bad_response', "slipgate answered HTTP {$status} for the QR of {$id}", 1);
        }
        return $raw;
    }

    /**
     * What became of a slip answered pending: its state (status pending, success, unconfirmed, superseded or refused).
     * @return array<string, mixed>|ErrorAnswer
     */
    public function getVerification(string $id): array|ErrorAnswer
    {
        [$status, $headers, $raw] = $this->send('GET', $this->base . self::VERIFICATIONS_PATH . '/' . rawurlencode($id), null, null, 1);
        $body = self::decode($status, $raw, 1);
        return $status === 200 ? $body : ErrorAnswer::of($status, $headers, self::envelope($status, $body, 1));
    }

    private function verifyAt(string $url, string $contentType, string $body): Verified|Pending|ErrorAnswer
    {
        for ($attempt = 1; ; $attempt++) {
            try {
                [$status, $headers, $raw] = $this->send('POST', $url, $contentType, $body, $attempt);
            } catch (TransportException $e) {
                if ($e->reason === 'network' && !$e->mayHaveBeenCharged && $attempt <= $this->retries) {
                    $this->pause($attempt, null);
                    continue;
                }
                throw $e;
            }
            // 429 and 503 are answered before any verification: nothing was charged.
            if (($status === 429 || $status === 503) && $attempt <= $this->retries) {
                $this->pause($attempt, ErrorAnswer::retryAfter($headers['retry-after'] ?? null));
                continue;
            }
            try {
                return self::verifyResult($status, $headers, $raw, $attempt);
            } catch (TransportException $e) {
                // An unreadable 200 (or 5xx) may have been a success: it is not known.
                throw new TransportException($e->reason, $e->getMessage(), $attempt, $status === 200 || $status >= 500);
            }
        }
    }

    private static function verifyResult(int $status, array $headers, string $raw, int $attempts): Verified|Pending|ErrorAnswer
    {
        $body = self::envelope($status, self::decode($status, $raw, $attempts), $attempts);
        $requestId = $headers['x-request-id'] ?? null;
        $credits = ErrorAnswer::credits($headers['x-credits-remaining'] ?? null);
        $message = is_string($body['message'] ?? null) ? $body['message'] : '';
        if ($body['status'] === 'error') {
            return ErrorAnswer::of($status, $headers, $body);
        }
        if ($body['status'] === 'pending') {
            if (!is_string($body['verificationId'] ?? null)) {
                throw new TransportException('bad_response', 'slipgate answered pending without a verificationId', $attempts);
            }
            return new Pending($body['verificationId'], $message, $requestId, $credits, is_array($body['paymentRequest'] ?? null) ? $body['paymentRequest'] : null);
        }
        if (!is_array($body['data'] ?? null) || !is_string($body['qrcode'] ?? null)) {
            throw new TransportException('bad_response', 'slipgate answered success without the slip', $attempts);
        }
        return new Verified($body['data'], $message, $body['qrcode'], $requestId, $credits, is_array($body['checks'] ?? null) ? $body['checks'] : null, is_array($body['paymentRequest'] ?? null) ? $body['paymentRequest'] : null);
    }

    private function payment(string $method, string $path, ?string $body = null): PaymentRequest|ErrorAnswer
    {
        [$status, $headers, $raw] = $this->send($method, $this->base . self::PAYMENT_REQUESTS_PATH . $path, $body === null ? null : 'application/json', $body, 1);
        $answer = self::envelope($status, self::decode($status, $raw, 1), 1);
        if ($answer['status'] === 'error') {
            return ErrorAnswer::of($status, $headers, $answer);
        }
        if (!is_array($answer['data'] ?? null)) {
            throw new TransportException('bad_response', "slipgate answered HTTP {$status} without the request", 1);
        }
        return new PaymentRequest($status, $status === 201, $answer['data']);
    }

    private function pause(int $attempt, ?int $retryAfter): void
    {
        $backoff = min($this->maxRetryDelaySeconds, $this->retryDelaySeconds * 2 ** ($attempt - 1) * (0.5 + mt_rand() / mt_getrandmax()));
        usleep((int) (1e6 * ($retryAfter !== null ? min($this->maxRetryDelaySeconds, $retryAfter) : $backoff)));
    }

    /** @return array{0: int, 1: array<string, string>, 2: string} one attempt: status, headers (lower-case names), body */
    private function send(string $method, string $url, ?string $contentType, ?string $body, int $attempt): array
    {
        $headers = [];
        $curl = curl_init($url);
        $requestHeaders = ['accept: application/json', 'x-api-key: ' . $this->apiKey, 'expect:'];
        if ($contentType !== null) {
            $requestHeaders[] = 'content-type: ' . $contentType;
        }
        curl_setopt_array($curl, [
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_HTTPHEADER => $requestHeaders,
            CURLOPT_RETURNTRANSFER => true,
            // slipgate answers every route itself: a redirect is not followed (the key would go with it).
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_PROTOCOLS => CURLPROTO_HTTP | CURLPROTO_HTTPS,
            CURLOPT_TIMEOUT_MS => (int) ($this->timeoutSeconds * 1000),
            CURLOPT_NOSIGNAL => true,
            CURLOPT_HEADERFUNCTION => static function ($curl, string $line) use (&$headers): int {
                $colon = strpos($line, ':');
                if ($colon !== false) {
                    $headers[strtolower(trim(substr($line, 0, $colon)))] = trim(substr($line, $colon + 1));
                }
                return strlen($line);
            },
            CURLOPT_NOPROGRESS => false,
            CURLOPT_XFERINFOFUNCTION => static fn ($curl, int $downTotal, int $down): int => $down > self::MAX_ANSWER_BYTES ? 1 : 0,
        ]);
        if ($body !== null) {
            curl_setopt($curl, CURLOPT_POSTFIELDS, $body);
        }
        $raw = curl_exec($curl);
        $errno = curl_errno($curl);
        $status = (int) curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
        $error = curl_error($curl);
        curl_close($curl);
        if ($errno === CURLE_OPERATION_TIMEDOUT) {
            // Never sent again: the server may be verifying (and charging) it right now.
            throw new TransportException('timeout', "no answer from slipgate within {$this->timeoutSeconds} s", $attempt, true);
        }
        if (in_array($errno, [CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST], true)) {
            throw new TransportException('network', "could not reach slipgate: {$error}", $attempt, false);
        }
        if ($errno !== 0 || !is_string($raw)) {
            // Reset or closed mid-answer: the request may have been verified.
            throw new TransportException('network', "the connection to slipgate failed: {$error}", $attempt, true);
        }
        return [$status, $headers, $raw];
    }

    /** @return array<string, mixed> */
    private static function decode(int $status, string $raw, int $attempts): array
    {
        try {
            $body = json_decode($raw, true, 64, JSON_THROW_ON_ERROR);
        } catch (\JsonException) {
            throw new TransportException('bad_response', "slipgate answered HTTP {$status} without a JSON body", $attempts);
        }
        if (!is_array($body) || array_is_list($body) && $body !== []) {
            throw new TransportException('bad_response', "slipgate answered HTTP {$status} with an unexpected body", $attempts);
        }
        return $body;
    }

    /** @return array<string, mixed> */
    private static function envelope(int $status, array $body, int $attempts): array
    {
        $kind = $body['status'] ?? null;
        if ($kind === 'success' || $kind === 'error' || ($kind === 'pending' && $status === 202)) {
            return $body;
        }
        throw new TransportException('bad_response', "slipgate answered HTTP {$status} with an unexpected body", $attempts);
    }

    private static function json(mixed $value): string
    {
        return json_encode($value, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
    }

    /** By its signature; anything else goes as a JPEG, and the server names the problem. */
    private static function pictureType(string $bytes): string
    {
        if (str_starts_with($bytes, "\x89PNG")) {
            return 'image/png';
        }
        if (strlen($bytes) >= 12 && str_starts_with($bytes, 'RIFF') && substr($bytes, 8, 4) === 'WEBP') {
            return 'image/webp';
        }
        return 'image/jpeg';
    }
}
