//! Eval suites as the catalog lists them, with their latest-run summary. Cases and runs
//! get their full behaviour in the evals module; the tables live here.

use rusqlite::params;

use super::{Keyset, Store, new_id, now_ms, to_json};
use crate::spec::Result;
use crate::spec::catalog::{EvalSuiteSummary, LatestRun, SuiteTotals};
use crate::spec::page::{Page, PageRequest};

/// How many recent finished runs make up `passRateTrend`.
const TREND: i64 = 10;

impl Store {
    /// Creates an empty suite over saved servers.
    pub fn create_suite(
        &self,
        project_id: &str,
        name: &str,
        server_ids: &[String],
        settings: &serde_json::Value,
    ) -> Result<String> {
        let id = new_id("sut");
        let now = now_ms();
        self.write(|tx| {
            tx.execute(
                "INSERT INTO eval_suites (id, project_id, name, settings, server_ids, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
                params![id, project_id, name, to_json(settings), to_json(&server_ids), now],
            )?;
            Ok(())
        })?;
        Ok(id)
    }

    pub fn suite_summaries(
        &self,
        project_id: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalSuiteSummary>> {
        let ks = Keyset::new(page)?;
        let items = self.read(|c| {
            let mut suites = c.prepare_cached(
                "SELECT s.id, s.name, s.created_at, s.updated_at,
                   (SELECT COUNT(*) FROM eval_cases WHERE suite_id = s.id),
                   (SELECT COUNT(*) FROM eval_runs WHERE suite_id = s.id),
                   (SELECT COALESCE(SUM(passed), 0) FROM eval_runs WHERE suite_id = s.id),
                   (SELECT COALESCE(SUM(failed), 0) FROM eval_runs WHERE suite_id = s.id)
                 FROM eval_suites s WHERE s.project_id = ?1 AND (s.created_at, s.id) > (?2, ?3)
                 ORDER BY s.created_at, s.id LIMIT ?4",
            )?;
            let mut runs = c.prepare_cached(
                "SELECT id, status, passed, failed, total, created_at FROM eval_runs WHERE suite_id = ?1
                 ORDER BY created_at DESC, id DESC LIMIT ?2",
            )?;
            let rows = suites
                .query_map(params![project_id, ks.after_ts, ks.after_id, ks.fetch()], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, i64>(4)?,
                        r.get::<_, i64>(5)?,
                        r.get::<_, i64>(6)?,
                        r.get::<_, i64>(7)?,
                    ))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let mut out = Vec::with_capacity(rows.len());
            for (id, name, created, updated, cases, nruns, passed, failed) in rows {
                let recent = runs
                    .query_map(params![id, TREND], |r| {
                        let (passed, failed, total): (i64, i64, i64) = (r.get(2)?, r.get(3)?, r.get(4)?);
                        Ok(LatestRun {
                            id: Some(r.get(0)?),
                            status: Some(r.get(1)?),
                            pass_rate: (total > 0).then(|| passed as f64 / total as f64),
                            passed: Some(passed),
                            failed: Some(failed),
                            created_at: Some(r.get(5)?),
                        })
                    })?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                let pass_rate_trend = recent
                    .iter()
                    .rev()
                    .filter(|r| matches!(r.status.as_deref(), Some("completed")))
                    .filter_map(|r| r.pass_rate)
                    .collect();
                out.push(EvalSuiteSummary {
                    id,
                    name: Some(name),
                    project_id: Some(project_id.to_string()),
                    latest_run: recent.into_iter().next(),
                    totals: SuiteTotals { passed: Some(passed), failed: Some(failed), runs: Some(nruns) },
                    pass_rate_trend,
                    case_count: Some(cases),
                    created_at: Some(created),
                    updated_at: Some(updated),
                });
            }
            Ok(out)
        })?;
        Ok(ks.page(items, |s| (s.created_at.unwrap_or_default(), s.id.clone())))
    }
}
