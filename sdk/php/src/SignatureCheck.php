<?php
declare(strict_types=1);

namespace Slipgate;

/** ok with the signed timestamp, or why not: malformed_header, no_matching_signature, timestamp_outside_tolerance. */
final class SignatureCheck
{
    public function __construct(
        public readonly bool $ok,
        public readonly ?int $timestamp,
        public readonly ?string $reason,
    ) {
    }
}
