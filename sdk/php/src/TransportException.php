<?php
declare(strict_types=1);

namespace Slipgate;

/**
 * No usable answer from slipgate. reason: timeout, network or bad_response.
 * A timeout may have been charged (the server may be verifying it right
 * now): it is never sent again by the client, and should not be by you
 * before looking it up. A refused connection never reached it.
 */
final class TransportException extends \RuntimeException
{
    public function __construct(
        public readonly string $reason,
        string $message,
        public readonly int $attempts,
        public readonly bool $mayHaveBeenCharged = false,
    ) {
        parent::__construct($message);
    }

    public function retrySafe(): bool
    {
        return !$this->mayHaveBeenCharged;
    }
}
