//! Eval suites as the catalog lists them, with their latest-run summary. Cases and runs
//! get their full behaviour in the evals module; the tables live here.

use rusqlite::{OptionalExtension, params};

use super::{Keyset, Store, from_json, new_id, now_ms, to_json};
use crate::spec::case::EvalCase;
use crate::spec::catalog::{EvalSuiteSummary, LatestRun, SuiteTotals};
use crate::spec::page::{Page, PageRequest};
use crate::spec::suite::{EvalSuite, SuiteSettings};
use crate::spec::{Error, Result};

/// The suites aggregate's storage (implemented by the SQLite [`Store`]; the seam a second store implements).
pub trait SuiteStore {
    /// Creates a suite and its cases in one transaction.
    fn create_suite(&self, project_id: &str, new: &NewSuite, cases: &[EvalCase]) -> Result<String>;

    fn suite(&self, project_id: &str, id_or_name: &str) -> Result<EvalSuite>;

    /// Replaces a suite's editable fields.
    fn update_suite(&self, s: &EvalSuite) -> Result<()>;

    fn delete_suite(&self, project_id: &str, id: &str) -> Result<()>;

    /// A suite's cases in order.
    fn cases(&self, suite_id: &str) -> Result<Vec<EvalCase>>;

    /// A page of a suite's cases in order, keyed on `(position, id)`.
    fn cases_page(&self, suite_id: &str, page: &PageRequest) -> Result<Page<EvalCase>>;

    fn case(&self, suite_id: &str, case_id: &str) -> Result<EvalCase>;

    /// Appends cases to a suite in one transaction.
    fn add_cases(&self, suite_id: &str, cases: &[EvalCase]) -> Result<()>;

    fn update_case(&self, suite_id: &str, case: &EvalCase) -> Result<EvalCase>;

    fn delete_case(&self, suite_id: &str, case_id: &str) -> Result<()>;

    /// A page of suites with their case counts, run totals, latest run and trend: one
    /// statement over `eval_suite_stats`, which triggers keep current as cases and runs
    /// change (migration V10), so a read never aggregates.
    fn suite_summaries(
        &self,
        project_id: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalSuiteSummary>>;

    /// The project's `suites_version`, which moves with every change the suite list shows
    /// (migration V11).
    fn suites_version(&self, project_id: &str) -> Result<i64>;
}

impl SuiteStore for Store {
    fn create_suite(&self, project_id: &str, new: &NewSuite, cases: &[EvalCase]) -> Result<String> {
        let id = new_id("sut");
        let now = now_ms();
        self.write(|tx| {
            tx.execute(
                "INSERT INTO eval_suites (id, project_id, name, description, settings, server_ids, environment_ids, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
                params![id, project_id, new.name, new.description, to_json(&new.settings), to_json(&new.server_ids), to_json(&new.environment_ids), now],
            )?;
            insert_cases(tx, &id, cases, now)?;
            Ok(())
        })?;
        Ok(id)
    }

    fn suite(&self, project_id: &str, id_or_name: &str) -> Result<EvalSuite> {
        let row = self.read(|c| {
            Ok(c.prepare_cached(
                "SELECT s.id, s.project_id, s.name, s.description, s.server_ids, s.environment_ids, s.settings,
                   (SELECT COUNT(*) FROM eval_cases WHERE suite_id = s.id), s.created_at, s.updated_at
                 FROM eval_suites s WHERE s.project_id = ?1 AND (s.id = ?2 OR s.name = ?2)
                 ORDER BY s.id = ?2 DESC, s.created_at LIMIT 1",
            )?
            .query_row(params![project_id, id_or_name], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, i64>(7)?,
                    r.get::<_, i64>(8)?,
                    r.get::<_, i64>(9)?,
                ))
            })
            .optional()?)
        })?;
        let (
            id,
            project_id,
            name,
            description,
            servers,
            envs,
            settings,
            case_count,
            created_at,
            updated_at,
        ) = row.ok_or_else(|| Error::not_found("eval suite", id_or_name))?;
        Ok(EvalSuite {
            id,
            project_id,
            name,
            description,
            server_ids: from_json(&servers)?,
            environment_ids: from_json(&envs)?,
            settings: from_json(&settings)?,
            schedule: None,
            case_count,
            created_at,
            updated_at,
        })
    }

    fn update_suite(&self, s: &EvalSuite) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "UPDATE eval_suites SET name = ?3, description = ?4, server_ids = ?5, environment_ids = ?6, settings = ?7, updated_at = ?8
                 WHERE project_id = ?1 AND id = ?2",
                params![s.project_id, s.id, s.name, s.description, to_json(&s.server_ids), to_json(&s.environment_ids), to_json(&s.settings), now_ms()],
            )?;
            Ok(())
        })
    }

    fn delete_suite(&self, project_id: &str, id: &str) -> Result<()> {
        let n = self.write(|tx| {
            Ok(tx.execute(
                "DELETE FROM eval_suites WHERE project_id = ?1 AND id = ?2",
                params![project_id, id],
            )?)
        })?;
        if n == 0 {
            return Err(Error::not_found("eval suite", id));
        }
        Ok(())
    }

    fn cases(&self, suite_id: &str) -> Result<Vec<EvalCase>> {
        let rows: Vec<(String, i64, i64)> = self.read(|c| {
            let mut st = c.prepare_cached("SELECT body, created_at, updated_at FROM eval_cases WHERE suite_id = ?1 ORDER BY position, id")?;
            let rows = st.query_map([suite_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })?;
        rows.into_iter()
            .map(|(b, c, u)| case_from_row(&b, c, u))
            .collect()
    }

    fn cases_page(&self, suite_id: &str, page: &PageRequest) -> Result<Page<EvalCase>> {
        let ks = Keyset::new(page)?;
        let rows: Vec<(String, i64, i64, i64)> = self.read(|c| {
            let mut st = c.prepare_cached(
                "SELECT body, created_at, updated_at, position FROM eval_cases
                 WHERE suite_id = ?1 AND (position, id) > (?2, ?3)
                 ORDER BY position, id LIMIT ?4",
            )?;
            let rows = st.query_map(
                params![suite_id, ks.after_ts, ks.after_id, ks.fetch()],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })?;
        let items = rows
            .into_iter()
            .map(|(b, c, u, pos)| Ok((case_from_row(&b, c, u)?, pos)))
            .collect::<Result<Vec<_>>>()?;
        let page = ks.page(items, |(case, pos)| (*pos, case.id.clone()));
        Ok(Page {
            items: page.items.into_iter().map(|(case, _)| case).collect(),
            next_cursor: page.next_cursor,
        })
    }

    fn case(&self, suite_id: &str, case_id: &str) -> Result<EvalCase> {
        let row: Option<(String, i64, i64)> = self.read(|c| {
            Ok(c.prepare_cached("SELECT body, created_at, updated_at FROM eval_cases WHERE suite_id = ?1 AND id = ?2")?
                .query_row(params![suite_id, case_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .optional()?)
        })?;
        let (b, c, u) = row.ok_or_else(|| Error::not_found("eval case", case_id))?;
        case_from_row(&b, c, u)
    }

    fn add_cases(&self, suite_id: &str, cases: &[EvalCase]) -> Result<()> {
        self.write(|tx| insert_cases(tx, suite_id, cases, now_ms()))
    }

    fn update_case(&self, suite_id: &str, case: &EvalCase) -> Result<EvalCase> {
        let now = now_ms();
        let n = self.write(|tx| {
            Ok(tx.execute(
                "UPDATE eval_cases SET body = ?3, updated_at = ?4 WHERE suite_id = ?1 AND id = ?2",
                params![suite_id, case.id, to_json(&stored(case)), now],
            )?)
        })?;
        if n == 0 {
            return Err(Error::not_found("eval case", &case.id));
        }
        self.case(suite_id, &case.id)
    }

    fn delete_case(&self, suite_id: &str, case_id: &str) -> Result<()> {
        let n = self.write(|tx| {
            Ok(tx.execute(
                "DELETE FROM eval_cases WHERE suite_id = ?1 AND id = ?2",
                params![suite_id, case_id],
            )?)
        })?;
        if n == 0 {
            return Err(Error::not_found("eval case", case_id));
        }
        Ok(())
    }

    fn suite_summaries(
        &self,
        project_id: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalSuiteSummary>> {
        let ks = Keyset::new(page)?;
        let items = self.read(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT s.id, s.name, s.created_at, s.updated_at,
                        st.case_count, st.runs, st.passed, st.failed,
                        st.latest_id, st.latest_status, st.latest_passed, st.latest_failed,
                        st.latest_total, st.latest_created_at, st.trend
                 FROM eval_suites s JOIN eval_suite_stats st ON st.suite_id = s.id
                 WHERE s.project_id = ?1 AND (s.created_at, s.id) > (?2, ?3)
                 ORDER BY s.created_at, s.id LIMIT ?4",
            )?;
            let rows = stmt.query_map(
                params![project_id, ks.after_ts, ks.after_id, ks.fetch()],
                |r| {
                    let latest_run = match r.get::<_, Option<String>>(8)? {
                        None => None,
                        Some(id) => {
                            let (passed, failed, total): (i64, i64, i64) =
                                (r.get(10)?, r.get(11)?, r.get(12)?);
                            Some(LatestRun {
                                id: Some(id),
                                status: Some(r.get(9)?),
                                pass_rate: pass_rate(passed, total),
                                passed: Some(passed),
                                failed: Some(failed),
                                created_at: Some(r.get(13)?),
                            })
                        }
                    };
                    Ok((
                        EvalSuiteSummary {
                            id: r.get(0)?,
                            name: Some(r.get(1)?),
                            project_id: Some(project_id.to_string()),
                            latest_run,
                            totals: SuiteTotals {
                                passed: Some(r.get(6)?),
                                failed: Some(r.get(7)?),
                                runs: Some(r.get(5)?),
                            },
                            pass_rate_trend: Vec::new(),
                            case_count: Some(r.get(4)?),
                            created_at: Some(r.get(2)?),
                            updated_at: Some(r.get(3)?),
                        },
                        r.get::<_, String>(14)?,
                    ))
                },
            )?;
            rows.map(|row| {
                let (mut summary, trend) = row?;
                let counts: Vec<(i64, i64)> = from_json(&trend)?;
                summary.pass_rate_trend = counts
                    .into_iter()
                    .filter_map(|(passed, total)| pass_rate(passed, total))
                    .collect();
                Ok(summary)
            })
            .collect::<Result<Vec<_>>>()
        })?;
        Ok(ks.page(items, |s| (s.created_at.unwrap_or_default(), s.id.clone())))
    }

    fn suites_version(&self, project_id: &str) -> Result<i64> {
        self.read(|c| {
            c.prepare_cached("SELECT suites_version FROM projects WHERE id = ?1")?
                .query_row([project_id], |r| r.get(0))
                .optional()?
                .ok_or_else(|| Error::not_found("project", project_id))
        })
    }
}

/// A run's share of passed iterations; none before it has any.
fn pass_rate(passed: i64, total: i64) -> Option<f64> {
    (total > 0).then(|| passed as f64 / total as f64)
}

/// What a new suite is made of, besides its cases.
#[derive(Debug, Clone, Default)]
pub struct NewSuite {
    pub name: String,
    pub description: Option<String>,
    pub settings: SuiteSettings,
    pub server_ids: Vec<String>,
    pub environment_ids: Vec<String>,
}

/// The body as stored: the times live in their own columns.
fn stored(case: &EvalCase) -> EvalCase {
    EvalCase {
        created_at: None,
        updated_at: None,
        ..case.clone()
    }
}

fn case_from_row(body: &str, created_at: i64, updated_at: i64) -> Result<EvalCase> {
    let mut c: EvalCase = from_json(body)?;
    c.created_at = Some(created_at);
    c.updated_at = Some(updated_at);
    Ok(c)
}

/// Appends cases after the suite's last position; used inside a caller's transaction.
pub fn insert_cases(
    tx: &rusqlite::Transaction,
    suite_id: &str,
    cases: &[EvalCase],
    now: i64,
) -> Result<()> {
    let start: i64 = tx.query_row(
        "SELECT COALESCE(MAX(position), -1) + 1 FROM eval_cases WHERE suite_id = ?1",
        [suite_id],
        |r| r.get(0),
    )?;
    let mut st = tx.prepare_cached(
        "INSERT INTO eval_cases (id, suite_id, position, body, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
    )?;
    for (i, c) in cases.iter().enumerate() {
        st.execute(params![
            c.id,
            suite_id,
            start + i as i64,
            to_json(&stored(c)),
            now
        ])?;
    }
    Ok(())
}
