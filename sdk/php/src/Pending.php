<?php
declare(strict_types=1);

namespace Slipgate;

/** HTTP 202 (only with paymentRequest or recheck): the bank does not know the slip yet; nothing charged, read it later with getVerification. */
final class Pending
{
    public readonly bool $ok;

    /** @param array<string, mixed>|null $paymentRequest */
    public function __construct(
        public readonly string $verificationId,
        public readonly string $message,
        public readonly ?string $requestId,
        public readonly ?int $creditsRemaining,
        public readonly ?array $paymentRequest,
    ) {
        $this->ok = false;
    }
}
