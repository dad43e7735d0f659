<?php
require __DIR__ . '/vendor/autoload.php';

use Slipgate\Client;
use Slipgate\Webhooks;

$slipgate = new Client(getenv('SLIPGATE_URL'), getenv('SLIPGATE_API_KEY'));

// 1. Verify the slip a customer sent (its QR text; verifyImage takes the picture's bytes).
$result = $slipgate->verify(getenv('SLIP_QR'), ['duplicate' => true]);
if ($result->ok) {
    echo "verified {$result->data['amount']} baht, credits left: {$result->creditsRemaining}\n";
} elseif ($result instanceof Slipgate\ErrorAnswer && $result->mayHaveBeenCharged()) {
    echo "unknown outcome: look up {$result->requestId} before sending it again\n";
} else {
    echo "not verified ({$result->kind}): {$result->message}\n";
}

// 2. A payment request for an order: the reference makes a repeated create safe.
$order = $slipgate->createPaymentRequest('120.00', getenv('ORDER_REFERENCE'));
if ($order->ok) {
    echo "pay at {$order->checkoutUrl} ({$order->data['status']})\n";
}

// 3. A webhook: check the raw body (file_get_contents('php://input')) and its slipgate-signature header, then parse it.
function onWebhook(string $rawBody, ?string $signature): int
{
    $check = Webhooks::verifySignature($rawBody, $signature, getenv('WEBHOOK_SECRET'));
    if (!$check->ok) {
        echo "webhook refused: {$check->reason}\n";
        return 400;
    }
    $event = Webhooks::parseEvent($rawBody);
    echo "webhook {$event->type} {$event->id}\n";
    return 204;
}

onWebhook(getenv('WEBHOOK_BODY'), getenv('WEBHOOK_SIGNATURE'));
