<?php
// The SDK against a real slipgate (tests/SlipgateServer.php): a success costs
// one credit, each contract error, a slip picture, a payment request paid by
// a sandbox slip, the checkout page's signed return, a webhook delivered to a
// local receiver and checked by the SDK, and the docs example
// (examples/quickstart.php, the exact file docs/sdks.md shows).
declare(strict_types=1);

namespace Slipgate\Tests;

use PHPUnit\Framework\TestCase;
use Slipgate\Client;
use Slipgate\ErrorAnswer;
use Slipgate\PaymentRequest;
use Slipgate\Verified;
use Slipgate\Webhooks;

final class ServerTest extends TestCase
{
    private static SlipgateServer $slipgate;
    private static array $shop;
    private static array $empty;
    private static array $gone;
    private static string $slipQr;
    private static string $unknownQr;
    private static string $webhookSecret;
    private static string $checkoutSecret;

    public static function setUpBeforeClass(): void
    {
        $s = self::$slipgate = new SlipgateServer();
        try {
            self::makeAccounts($s);
        } catch (\Throwable $e) {
            // Nothing is left running when the accounts cannot be made.
            $s->stop();
            throw $e;
        }
    }

    private static function makeAccounts(SlipgateServer $s): void
    {
        $made = $s->cli(
            ['accounts', 'create', '--name', 'PHP shop', '--credits', '20', '--json'],
            ['accounts', 'create', '--name', 'Empty shop', '--credits', '0', '--json'],
            ['accounts', 'create', '--name', 'Gone shop', '--credits', '5', '--json'],
            ['sandbox', 'qr', '--amount', '250.00', '--png', $s->dir . '/slip.png'],
            ['sandbox', 'qr', '--outcome', 'not-found'],
        );
        [self::$shop, self::$empty, self::$gone] = array_map(static fn ($out) => json_decode($out, true, 8, JSON_THROW_ON_ERROR), array_slice($made, 0, 3));
        self::$slipQr = trim($made[3]);
        self::$unknownQr = trim($made[4]);
        $more = $s->cli(
            ['webhooks', 'add', self::$shop['accountId'], '--url', $s->receiverUrl, '--events', 'verification.succeeded', '--json'],
            ['receivers', 'add', self::$shop['accountId'], '--promptpay', '0812345678', '--name', 'SOMCHAI JAIDEE'],
            ['accounts', 'delete', self::$gone['accountId'], '--yes'],
            ['payments', 'checkout-secret', self::$shop['accountId']],
        );
        self::$webhookSecret = json_decode($more[0], true, 8, JSON_THROW_ON_ERROR)['secret'];
        self::$checkoutSecret = trim($more[3]);
    }

    public static function tearDownAfterClass(): void
    {
        self::$slipgate->stop();
    }

    private static function client(?string $key = null): Client
    {
        return new Client(self::$slipgate->url, $key ?? self::$shop['apiKey']);
    }

    public function testASuccessCostsOneCreditAndAFailureNone(): void
    {
        $before = self::client()->verify(self::$unknownQr);
        self::assertInstanceOf(ErrorAnswer::class, $before);
        self::assertSame(['verification', 200, null, false, true], [$before->kind, $before->httpStatus, $before->code, $before->mayHaveBeenCharged(), $before->retrySafe()]);
        $verified = self::client()->verify(self::$slipQr, ['amount' => '250.00']);
        self::assertInstanceOf(Verified::class, $verified);
        self::assertSame([250, self::$slipQr, true], [$verified->data['amount'], $verified->qrcode, $verified->checks['amount']['passed']]);
        self::assertSame($before->creditsRemaining - 1, $verified->creditsRemaining);
        self::assertSame($verified->creditsRemaining, self::client()->verify(self::$unknownQr)->creditsRemaining);
    }

    public function testEachContractError(): void
    {
        $cases = [
            [ErrorAnswer::API_KEY_MISSING, 401, '', 'api key is missing'],
            [ErrorAnswer::INVALID_API_KEY, 401, 'slip_not_a_key_of_this_server', 'invalid api key'],
            [ErrorAnswer::USER_NOT_FOUND, 400, self::$gone['apiKey'], 'user not found'],
            [ErrorAnswer::INSUFFICIENT_FUND, 400, self::$empty['apiKey'], 'insufficient fund'],
        ];
        foreach ($cases as [$code, $status, $key, $message]) {
            $answer = self::client($key)->verify(self::$slipQr);
            self::assertInstanceOf(ErrorAnswer::class, $answer);
            self::assertSame(['account', $code, $status, $message, false, false], [$answer->kind, $answer->code, $answer->httpStatus, $answer->message, $answer->mayHaveBeenCharged(), $answer->retryLater()]);
        }
        self::assertSame(0, self::client(self::$empty['apiKey'])->verify(self::$slipQr)->creditsRemaining);
    }

    public function testAPicture(): void
    {
        $verified = self::client()->verifyImage((string) file_get_contents(self::$slipgate->dir . '/slip.png'));
        self::assertInstanceOf(Verified::class, $verified, print_r($verified, true));
        self::assertSame([self::$slipQr, 250], [$verified->qrcode, $verified->data['amount']]);
        $unreadable = self::client()->verifyImage("\x89PNG\r\n\x1a\n not a picture");
        self::assertInstanceOf(ErrorAnswer::class, $unreadable);
        self::assertFalse($unreadable->mayHaveBeenCharged());
    }

    public function testAPaymentRequestPaidByASandboxSlip(): void
    {
        $client = self::client();
        $reference = 'order-php-' . bin2hex(random_bytes(4));
        $made = $client->createPaymentRequest('120.00', $reference, successUrl: 'https://shop.example/thanks');
        self::assertInstanceOf(PaymentRequest::class, $made);
        self::assertSame([201, true, 'pending', 120], [$made->httpStatus, $made->created, $made->data['status'], $made->data['amount']]);
        self::assertStringStartsWith(self::$slipgate->url . '/checkout/' . $made->data['id'] . '/', $made->checkoutUrl);
        $again = $client->createPaymentRequest(120, $reference, successUrl: 'https://shop.example/thanks');
        self::assertSame([200, false, $made->data['id']], [$again->httpStatus, $again->created, $again->data['id']]);
        $reused = $client->createPaymentRequest(99, $reference);
        self::assertSame(['reference_conflict', 1026, 409], [$reused->kind, $reused->code, $reused->httpStatus]);
        self::assertSame($made->data['id'], $client->findPaymentRequest($reference)->data['id']);
        self::assertStringStartsWith("\x89PNG", $client->paymentRequestQr($made->data['id']));

        [$slip] = self::$slipgate->cli(['sandbox', 'qr', '--pays', $made->data['id']]);
        $paid = $client->verify(trim($slip), paymentRequest: $made->data['id']);
        self::assertInstanceOf(Verified::class, $paid);
        self::assertSame(['id' => $made->data['id'], 'status' => 'paid'], $paid->paymentRequest);
        self::assertSame('paid', $client->getPaymentRequest($made->data['id'])->data['status']);
        self::assertSame(409, $client->cancelPaymentRequest($made->data['id'])->httpStatus);

        $other = $client->createPaymentRequest(5, $reference . '-b', expiresInMinutes: 10);
        self::assertSame('cancelled', $client->cancelPaymentRequest($other->data['id'])->data['status']);
        $missing = $client->getPaymentRequest('pr_' . str_repeat('0', 32));
        self::assertSame(['invalid_request', 404], [$missing->kind, $missing->httpStatus]);
    }

    public function testTheCheckoutReturnSignedByTheServer(): void
    {
        $made = self::client()->createPaymentRequest('80.00', 'order-php-' . bin2hex(random_bytes(4)), successUrl: 'https://shop.example/thanks?order=7');
        $picture = self::$slipgate->dir . '/' . $made->data['id'] . '.png';
        self::$slipgate->cli(['sandbox', 'qr', '--pays', $made->data['id'], '--png', $picture]);
        // The customer uploads the slip on the checkout page, which sends them back to the shop, signed.
        $curl = curl_init($made->checkoutUrl);
        curl_setopt_array($curl, [CURLOPT_POST => true, CURLOPT_POSTFIELDS => ['slip' => new \CURLFile($picture, 'image/png', 'slip.png')], CURLOPT_RETURNTRANSFER => true, CURLOPT_FOLLOWLOCATION => false, CURLOPT_TIMEOUT => 60]);
        curl_exec($curl);
        $status = curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
        $back = (string) curl_getinfo($curl, CURLINFO_REDIRECT_URL);
        curl_close($curl);
        self::assertSame(303, $status);
        self::assertStringStartsWith('https://shop.example/thanks?order=7&', $back);
        $check = Webhooks::verifyCheckoutReturn($back, self::$checkoutSecret);
        self::assertSame([true, $made->data['id'], 'paid'], [$check->ok, $check->paymentRequest, $check->status]);
        self::assertSame('bad_signature', Webhooks::verifyCheckoutReturn($back, 'cks_' . str_repeat('x', 43))->reason);
        self::assertSame('bad_signature', Webhooks::verifyCheckoutReturn(str_replace($made->data['id'], 'pr_' . str_repeat('0', 32), $back), self::$checkoutSecret)->reason);
    }

    public function testAWebhookDeliveredAndChecked(): void
    {
        $verified = self::client()->verify(self::$slipQr);
        [$raw, $signature] = self::$slipgate->eventAbout($verified->requestId);
        $check = Webhooks::verifySignature($raw, $signature, self::$webhookSecret);
        self::assertTrue($check->ok, (string) $check->reason);
        $event = Webhooks::parseEvent($raw);
        self::assertSame(['verification.succeeded', 250, $verified->data['transactionId']], [$event->type, $event->data['amount'], $event->data['transactionId']]);
        $tampered = str_replace('"amount":250', '"amount":2500', $raw);
        self::assertNotSame($raw, $tampered);
        self::assertSame('no_matching_signature', Webhooks::verifySignature($tampered, $signature, self::$webhookSecret)->reason);
        self::assertSame('no_matching_signature', Webhooks::verifySignature($raw, $signature, 'whsec_' . str_repeat('x', 43))->reason);
    }

    public function testTheDocsExample(): void
    {
        $verified = self::client()->verify(self::$slipQr);
        [$raw, $signature] = self::$slipgate->eventAbout($verified->requestId);
        // The example loads composer's autoloader beside it: here one that loads this SDK as composer would.
        $dir = self::$slipgate->dir . '/example';
        mkdir($dir . '/vendor', 0700, true);
        copy(__DIR__ . '/../examples/quickstart.php', $dir . '/quickstart.php');
        file_put_contents($dir . '/vendor/autoload.php', '<?php require ' . var_export(realpath(__DIR__ . '/bootstrap.php'), true) . ';');
        $run = function (string $body) use ($dir, $signature): string {
            $env = ['SLIPGATE_URL' => self::$slipgate->url, 'SLIPGATE_API_KEY' => self::$shop['apiKey'], 'SLIP_QR' => self::$slipQr, 'ORDER_REFERENCE' => 'order-php-' . bin2hex(random_bytes(4)), 'WEBHOOK_SECRET' => self::$webhookSecret, 'WEBHOOK_BODY' => $body, 'WEBHOOK_SIGNATURE' => $signature] + getenv();
            $proc = proc_open(['php', $dir . '/quickstart.php'], [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, $dir, $env);
            $out = stream_get_contents($pipes[1]);
            $err = stream_get_contents($pipes[2]);
            self::assertSame(0, proc_close($proc), $err);
            return $out;
        };
        $out = $run($raw);
        self::assertMatchesRegularExpression('/verified 250 baht, credits left: \d+\n/', $out);
        self::assertMatchesRegularExpression('#pay at ' . preg_quote(self::$slipgate->url, '#') . '/checkout/pr_[0-9a-f]+/\S+ \(pending\)\n#', $out);
        self::assertStringContainsString('webhook verification.succeeded evt_', $out);
        self::assertStringContainsString('webhook refused: no_matching_signature', $run(str_replace('"amount":250', '"amount":2500', $raw)));
    }
}
