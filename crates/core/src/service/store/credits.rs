//! Debits for usage that already happened (eval iterations on hosted models, agent turns):
//! the tokens are spent, so a short balance is emptied rather than refused, and the debit
//! and its ledger entry land in one transaction.

use rusqlite::{Transaction, params};

use super::{Store, new_id, now_ms};
use crate::spec::Result;

/// The credits aggregate's storage (implemented by the SQLite [`Store`]; the seam a second store implements).
pub trait CreditStore {
    /// Debits up to `cost` credits from `org_id` with a ledger entry of `kind` tied to
    /// `reference` (a run or job id); returns what was debited.
    fn debit_usage(
        &self,
        org_id: &str,
        cost: i64,
        kind: &str,
        reference: Option<&str>,
        note: &str,
    ) -> Result<i64>;
}

impl CreditStore for Store {
    fn debit_usage(
        &self,
        org_id: &str,
        cost: i64,
        kind: &str,
        reference: Option<&str>,
        note: &str,
    ) -> Result<i64> {
        if cost <= 0 {
            return Ok(0);
        }
        self.write(|tx| debit_in(tx, org_id, cost, kind, reference, note))
    }
}

/// [`Store::debit_usage`] inside a transaction the caller owns, so a debit lands together
/// with what it paid for (an iteration's result): a restart never charges it twice.
pub fn debit_in(
    tx: &Transaction,
    org_id: &str,
    cost: i64,
    kind: &str,
    reference: Option<&str>,
    note: &str,
) -> Result<i64> {
    if cost <= 0 {
        return Ok(0);
    }
    let balance: i64 = tx.query_row(
        "SELECT credits FROM organizations WHERE id = ?1",
        [org_id],
        |r| r.get(0),
    )?;
    let debit = cost.min(balance.max(0));
    if debit == 0 {
        return Ok(0);
    }
    let now = now_ms();
    tx.execute(
        "UPDATE organizations SET credits = credits - ?2, updated_at = ?3 WHERE id = ?1",
        params![org_id, debit, now],
    )?;
    tx.execute(
        "INSERT INTO credit_ledger (id, org_id, delta, balance, kind, job_id, note, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            new_id("led"),
            org_id,
            -debit,
            balance - debit,
            kind,
            reference,
            note,
            now
        ],
    )?;
    Ok(debit)
}
