// The SQL engines' migration that gives the records already stored the
// slip's identity: its reference in upper case (domain/verify/slip-qr.ts,
// slipReference), the spelling every lookup and uniqueness rule now uses.
// The same statements on SQLite and PostgreSQL: references are ASCII
// letters and digits, which upper() folds the same way on both.
//
// A slip pays one request (payment_requests_paying_slip): two requests
// paid before this upgrade by spellings of one transfer (a re-cased QR)
// cannot both take its identity. The first paid (then the smaller id) does,
// unless a request already holds it; the other keeps its own spelling, the
// record of that double payment (docs/upgrade.md says how to list them).
// Read after the statement's rows change (SQLite) or before (PostgreSQL),
// the rule picks the same request.
export const SLIP_REFERENCES_MIGRATION = `
  UPDATE verify_transactions SET transaction_id = upper(transaction_id) WHERE transaction_id <> upper(transaction_id);
  UPDATE request_errors SET transaction_id = upper(transaction_id) WHERE transaction_id <> upper(transaction_id);
  UPDATE rechecks SET trans_ref = upper(trans_ref) WHERE trans_ref <> upper(trans_ref);
  UPDATE payment_requests SET paid_transaction_id = upper(paid_transaction_id)
  WHERE paid_transaction_id <> upper(paid_transaction_id)
    AND NOT EXISTS (
      SELECT 1 FROM payment_requests AS other
      WHERE other.id <> payment_requests.id
        AND other.paid_sending_bank = payment_requests.paid_sending_bank
        AND upper(other.paid_transaction_id) = upper(payment_requests.paid_transaction_id)
        AND (
          other.paid_transaction_id = upper(other.paid_transaction_id)
          OR other.paid_at < payment_requests.paid_at
          OR (other.paid_at = payment_requests.paid_at AND other.id < payment_requests.id)
        )
    );
`;
