<?php
declare(strict_types=1);

namespace Slipgate;

/** ok with the paid paymentRequest (status "paid"), or why not: malformed, bad_signature. */
final class CheckoutReturnCheck
{
    public readonly ?string $status;

    public function __construct(
        public readonly bool $ok,
        public readonly ?string $paymentRequest,
        public readonly ?string $reason,
    ) {
        $this->status = $ok ? 'paid' : null;
    }
}
