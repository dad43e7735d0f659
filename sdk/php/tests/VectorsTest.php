<?php
// The shared vectors (sdk/vectors/, made by scripts/sdk-vectors.ts with the
// server's own code): every case gives its expected answer here as in the
// TypeScript, Python and Go SDKs, and a tampered one is refused.
declare(strict_types=1);

namespace Slipgate\Tests;

use PHPUnit\Framework\TestCase;
use Slipgate\ErrorAnswer;
use Slipgate\Webhooks;

final class VectorsTest extends TestCase
{
    private static function cases(string $name): array
    {
        $cases = json_decode((string) file_get_contents(__DIR__ . '/../../vectors/' . $name), true, 64, JSON_THROW_ON_ERROR)['cases'];
        self::assertNotEmpty($cases);
        return array_combine(array_column($cases, 'name'), array_map(static fn ($c) => [$c], $cases));
    }

    public static function webhookCases(): array
    {
        return self::cases('webhooks.json');
    }

    /** @dataProvider webhookCases */
    public function testWebhook(array $case): void
    {
        $got = Webhooks::verifySignature($case['body'], $case['headers']['slipgate-signature'], $case['secret'], $case['toleranceSeconds'], (float) $case['now']);
        $want = $case['expect'];
        self::assertSame([$want['ok'], $want['timestamp'] ?? null, $want['reason'] ?? null], [$got->ok, $got->timestamp, $got->reason]);
    }

    public static function checkoutCases(): array
    {
        return self::cases('checkout-return.json');
    }

    /** @dataProvider checkoutCases */
    public function testCheckoutReturn(array $case): void
    {
        $got = Webhooks::verifyCheckoutReturn($case['url'], $case['secret']);
        $want = $case['expect'];
        self::assertSame([$want['ok'], $want['paymentRequest'] ?? null, $want['status'] ?? null, $want['reason'] ?? null], [$got->ok, $got->paymentRequest, $got->status, $got->reason]);
    }

    public static function errorCases(): array
    {
        return self::cases('errors.json');
    }

    /** @dataProvider errorCases */
    public function testErrorAnswer(array $case): void
    {
        $got = ErrorAnswer::of($case['httpStatus'], $case['headers'], json_decode($case['body'], true, 64, JSON_THROW_ON_ERROR));
        $want = $case['expect'];
        self::assertSame(
            [$want['kind'], $want['code'], $want['message'], $want['creditsRemaining'], $want['retryAfterSeconds'], $want['mayHaveBeenCharged'], $want['retrySafe'], $want['retryLater']],
            [$got->kind, $got->code, $got->message, $got->creditsRemaining, $got->retryAfterSeconds, $got->mayHaveBeenCharged(), $got->retrySafe(), $got->retryLater()],
        );
    }
}
