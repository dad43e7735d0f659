<?php
declare(strict_types=1);

namespace Slipgate;

/** A webhook body (docs/webhooks.md): parse it only after Webhooks::verifySignature said ok. */
final class WebhookEvent
{
    /** @param array<string, mixed> $data */
    public function __construct(
        public readonly string $id,
        public readonly string $type,
        public readonly string $createdAt,
        public readonly array $data,
    ) {
    }
}
