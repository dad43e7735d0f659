<?php
declare(strict_types=1);

namespace Slipgate;

/** A payment request route's success: created on the create that made it (201), false when the reference was used before with the same body. */
final class PaymentRequest
{
    public readonly bool $ok;
    /** The request's checkout page; null when the server has no PUBLIC_URL or SECRETS_KEY. */
    public readonly ?string $checkoutUrl;

    /** @param array<string, mixed> $data the request as docs/payments.md shows it */
    public function __construct(
        public readonly int $httpStatus,
        public readonly bool $created,
        public readonly array $data,
    ) {
        $this->ok = true;
        $this->checkoutUrl = is_string($data['checkoutUrl'] ?? null) ? $data['checkoutUrl'] : null;
    }
}
