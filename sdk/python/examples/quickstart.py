import os

from slipgate import Client, parse_webhook_event, verify_webhook_signature

slipgate = Client(os.environ["SLIPGATE_URL"], os.environ["SLIPGATE_API_KEY"])

# 1. Verify the slip a customer sent (its QR text; verify_image takes the picture's bytes).
result = slipgate.verify(os.environ["SLIP_QR"], checks={"duplicate": True})
if result.ok:
    print(f"verified {result.data['amount']} baht, credits left: {result.credits_remaining}")
elif result.may_have_been_charged:
    print(f"unknown outcome: look up {result.request_id} before sending it again")
else:
    print(f"not verified ({result.kind}): {result.message}")

# 2. A payment request for an order: the reference makes a repeated create safe.
order = slipgate.create_payment_request(amount="120.00", reference=os.environ["ORDER_REFERENCE"])
if order.ok:
    print(f"pay at {order.checkout_url} ({order.data['status']})")


# 3. A webhook: check the raw body and its slipgate-signature header, then parse it.
def on_webhook(raw_body: bytes, signature: str) -> int:
    check = verify_webhook_signature(raw_body, signature, os.environ["WEBHOOK_SECRET"])
    if not check.ok:
        print(f"webhook refused: {check.reason}")
        return 400
    event = parse_webhook_event(raw_body)
    print(f"webhook {event.type} {event.id}")
    return 204


on_webhook(os.environ["WEBHOOK_BODY"].encode("utf-8"), os.environ["WEBHOOK_SIGNATURE"])
