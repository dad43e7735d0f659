<?php
declare(strict_types=1);

namespace Slipgate;

/** A verified slip: one credit was charged. checks and paymentRequest only when asked for (or reported by the receiver policy). */
final class Verified
{
    public readonly bool $ok;

    /**
     * @param array<string, mixed> $data the slip; rawData is the bank's record, passed through
     * @param array<string, mixed>|null $checks
     * @param array<string, mixed>|null $paymentRequest
     */
    public function __construct(
        public readonly array $data,
        public readonly string $message,
        public readonly string $qrcode,
        public readonly ?string $requestId,
        public readonly ?int $creditsRemaining,
        public readonly ?array $checks,
        public readonly ?array $paymentRequest,
    ) {
        $this->ok = true;
    }
}
