//! Versioned schema migrations (`PRAGMA user_version`), applied in one transaction each.

use std::sync::LazyLock;

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

use crate::spec::{Error, Result};

const V1: &str = r#"
CREATE TABLE organizations (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  credits INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE members (
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  PRIMARY KEY (org_id, user_id)
);
-- org_id becomes NULL when the organization is deleted: the key is then orphaned.
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  name TEXT NOT NULL,
  org_id TEXT REFERENCES organizations(id) ON DELETE SET NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX projects_org ON projects(org_id, created_at, id);
CREATE TABLE project_members (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
  PRIMARY KEY (project_id, user_id)
);
CREATE TABLE servers (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 1,
  config TEXT NOT NULL,
  revision INTEGER NOT NULL DEFAULT 1,
  last_status TEXT,
  snapshot TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (project_id, name)
);
CREATE TABLE oauth_tokens (
  server_id TEXT PRIMARY KEY REFERENCES servers(id) ON DELETE CASCADE,
  server_url TEXT NOT NULL,
  resource_url TEXT,
  client_id TEXT,
  client_secret TEXT,
  access_token TEXT NOT NULL,
  refresh_token TEXT,
  token_type TEXT,
  scope TEXT,
  expires_at INTEGER,
  updated_at INTEGER NOT NULL
);
CREATE TABLE hosts (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  config TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX hosts_project ON hosts(project_id, created_at, id);
CREATE TABLE server_groups (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (project_id, name)
);
CREATE TABLE server_group_members (
  group_id TEXT NOT NULL REFERENCES server_groups(id) ON DELETE CASCADE,
  server_id TEXT NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  PRIMARY KEY (group_id, server_id)
);
CREATE TABLE plugins (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE plugin_versions (
  id TEXT PRIMARY KEY,
  plugin_id TEXT NOT NULL REFERENCES plugins(id) ON DELETE CASCADE,
  version TEXT NOT NULL,
  bundle_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE skills (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
-- Pins are kept as JSON: a pinned version that is deleted later is dropped on restore
-- and makes resolve answer 409, rather than vanishing silently through a cascade.
CREATE TABLE environments (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  host_id TEXT NOT NULL REFERENCES hosts(id),
  server_attachment_id TEXT REFERENCES server_groups(id) ON DELETE SET NULL,
  model_id TEXT,
  skill_selection TEXT,
  plugin_version_ids TEXT,
  revision INTEGER NOT NULL DEFAULT 1,
  archived_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
-- Archiving frees the name: only live environments must have unique names.
CREATE UNIQUE INDEX environments_live_name ON environments(project_id, name) WHERE archived_at IS NULL;
CREATE INDEX environments_project ON environments(project_id, created_at, id);
CREATE TABLE chatboxes (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  mode TEXT NOT NULL DEFAULT 'project_members',
  host_id TEXT REFERENCES hosts(id) ON DELETE SET NULL,
  settings TEXT NOT NULL DEFAULT '{}',
  server_ids TEXT NOT NULL DEFAULT '[]',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE chat_sessions (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
  title TEXT,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  is_pinned INTEGER NOT NULL DEFAULT 0,
  is_unread INTEGER NOT NULL DEFAULT 0,
  last_activity_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX chat_sessions_activity ON chat_sessions(project_id, last_activity_at DESC, id);
CREATE TABLE eval_suites (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  settings TEXT NOT NULL DEFAULT '{}',
  server_ids TEXT NOT NULL DEFAULT '[]',
  environment_ids TEXT NOT NULL DEFAULT '[]',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX eval_suites_project ON eval_suites(project_id, created_at, id);
CREATE TABLE eval_cases (
  id TEXT PRIMARY KEY,
  suite_id TEXT NOT NULL REFERENCES eval_suites(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX eval_cases_suite ON eval_cases(suite_id, position);
CREATE TABLE eval_runs (
  id TEXT PRIMARY KEY,
  suite_id TEXT NOT NULL REFERENCES eval_suites(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  run_number INTEGER NOT NULL,
  status TEXT NOT NULL,
  result TEXT,
  passed INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  total INTEGER NOT NULL DEFAULT 0,
  source TEXT NOT NULL,
  body TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  completed_at INTEGER
);
CREATE INDEX eval_runs_suite ON eval_runs(suite_id, created_at DESC);
"#;

/// Eval runs: ownership and heartbeats for restart recovery, the environment snapshot, the
/// per-organization concurrency count, and one row per iteration with its transcript.
/// Authoring jobs, their drafts, and the organizations' credit ledger.
const V2_AUTHORING: &str = r#"
CREATE TABLE authoring_jobs (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  suite_id TEXT NOT NULL REFERENCES eval_suites(id) ON DELETE CASCADE,
  user_id TEXT,
  status TEXT NOT NULL CHECK (status IN ('pending', 'completed', 'failed', 'cancelled')),
  error TEXT,
  request TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  idempotency_key TEXT,
  tools TEXT NOT NULL DEFAULT '[]',
  author TEXT NOT NULL DEFAULT '{}',
  generation_model TEXT,
  normal INTEGER NOT NULL DEFAULT 0,
  negative INTEGER NOT NULL DEFAULT 0,
  tokens_in INTEGER NOT NULL DEFAULT 0,
  tokens_out INTEGER NOT NULL DEFAULT 0,
  credits_charged INTEGER NOT NULL DEFAULT 0,
  commit_deadline INTEGER NOT NULL,
  result TEXT,
  committed_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER
);
-- Keys are scoped to the organization; a key names one job for ever.
CREATE UNIQUE INDEX authoring_jobs_key ON authoring_jobs(org_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX authoring_jobs_pending ON authoring_jobs(status) WHERE status = 'pending';
CREATE TABLE authoring_drafts (
  id TEXT PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES authoring_jobs(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'draft'
    CHECK (state IN ('draft', 'created', 'skipped', 'finished', 'discarded')),
  skip_code TEXT,
  skip_reason TEXT,
  duplicate_of TEXT,
  case_id TEXT,
  updated_at INTEGER NOT NULL
);
CREATE INDEX authoring_drafts_job ON authoring_drafts(job_id, position);
CREATE TABLE credit_ledger (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  delta INTEGER NOT NULL,
  balance INTEGER NOT NULL,
  kind TEXT NOT NULL,
  job_id TEXT,
  note TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX credit_ledger_org ON credit_ledger(org_id, created_at, id);
"#;

const V3_RUNS: &str = r#"
ALTER TABLE eval_runs ADD COLUMN org_id TEXT;
ALTER TABLE eval_runs ADD COLUMN environment TEXT;
ALTER TABLE eval_runs ADD COLUMN error TEXT;
ALTER TABLE eval_runs ADD COLUMN owner TEXT;
ALTER TABLE eval_runs ADD COLUMN heartbeat_at INTEGER;
ALTER TABLE eval_runs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
CREATE INDEX eval_runs_active ON eval_runs(org_id, status);
CREATE TABLE eval_iterations (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  case_id TEXT NOT NULL,
  status TEXT NOT NULL,
  result TEXT,
  body TEXT NOT NULL,
  transcript TEXT,
  grade TEXT,
  UNIQUE (run_id, seq)
);
"#;

/// Recorded answers of idempotent writes (see `api::idempotency`).
const V4_IDEMPOTENCY: &str = r#"
CREATE TABLE idempotency_keys (
  org_id TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  status INTEGER,
  body BLOB,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (org_id, key)
);
CREATE INDEX idempotency_keys_age ON idempotency_keys(created_at);
"#;

/// Result ingestion: the reporter's run id (unique per project) and iteration ids (unique
/// per run) that make retries idempotent, and the single-use upload URLs (only a hash of the
/// token is kept) with the artifact each one received.
const V5_INGEST: &str = r#"
ALTER TABLE eval_runs ADD COLUMN external_run_id TEXT;
CREATE UNIQUE INDEX eval_runs_external ON eval_runs(project_id, external_run_id)
  WHERE external_run_id IS NOT NULL;
ALTER TABLE eval_iterations ADD COLUMN external_id TEXT;
CREATE UNIQUE INDEX eval_iterations_external ON eval_iterations(run_id, external_id)
  WHERE external_id IS NOT NULL;
CREATE TABLE ingest_uploads (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  org_role TEXT NOT NULL,
  request TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  used_at INTEGER,
  kind TEXT,
  size INTEGER,
  sha256 TEXT,
  content BLOB,
  run_id TEXT
);
"#;

/// Scheduled runs: one schedule per suite (with the member whose access the firings use)
/// and the firing log. `next_run_at` is the compare-and-set token a firing claims.
const V6_SCHEDULES: &str = r#"
CREATE TABLE eval_schedules (
  suite_id TEXT PRIMARY KEY REFERENCES eval_suites(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  interval_minutes INTEGER,
  environment_id TEXT,
  next_run_at INTEGER,
  last_fired_at INTEGER,
  last_run_id TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX eval_schedules_due ON eval_schedules(next_run_at) WHERE enabled = 1;
CREATE TABLE eval_schedule_firings (
  id TEXT PRIMARY KEY,
  suite_id TEXT NOT NULL REFERENCES eval_schedules(suite_id) ON DELETE CASCADE,
  due_at INTEGER NOT NULL,
  fired_at INTEGER NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('pending', 'launched', 'skipped')),
  reason TEXT,
  message TEXT,
  run_id TEXT
);
CREATE INDEX eval_schedule_firings_suite ON eval_schedule_firings(suite_id, fired_at DESC, id);
"#;

/// The project-wide runs list (`GET /projects/{p}/eval-runs`), newest first.
const V7_PROJECT_RUNS: &str = r#"
CREATE INDEX eval_runs_project ON eval_runs(project_id, created_at DESC, id DESC);
"#;

/// Host names become unique per project, as environment names are. Older databases may
/// hold duplicates: every host after the first of a name (oldest first) is renamed
/// `name (2)`, `name (3)`, …, or `name (host id)` when that name is taken too.
const V8_HOST_NAMES: &str = r#"
CREATE TEMP TABLE host_renames AS
  SELECT d.id, CASE
      WHEN EXISTS (SELECT 1 FROM hosts o WHERE o.project_id = d.project_id
                   AND o.name = d.name || ' (' || d.n || ')')
        THEN d.name || ' (' || d.id || ')'
      ELSE d.name || ' (' || d.n || ')'
    END AS new_name
  FROM (SELECT id, project_id, name,
               ROW_NUMBER() OVER (PARTITION BY project_id, name ORDER BY created_at, id) AS n
        FROM hosts) d
  WHERE d.n > 1;
UPDATE hosts SET name = (SELECT new_name FROM host_renames r WHERE r.id = hosts.id)
  WHERE id IN (SELECT id FROM host_renames);
DROP TABLE host_renames;
CREATE UNIQUE INDEX hosts_name ON hosts(project_id, name);
"#;

/// The suite list reads each suite's run totals and recent runs from this index alone;
/// it starts with the columns of `eval_runs_suite`, which it replaces.
const V9_SUITE_SUMMARY: &str = r#"
DROP INDEX eval_runs_suite;
CREATE INDEX eval_runs_suite_summary
  ON eval_runs(suite_id, created_at DESC, id DESC, status, passed, failed, total);
"#;

/// Each suite's list summary as a row that triggers keep current, so the suite list reads
/// one row per suite instead of aggregating its cases and runs on every request. Totals
/// move by deltas; the latest run and the trend (pass counts of the ten most recent
/// completed runs with a total, oldest first) are re-read from `eval_runs_suite_summary`
/// for the suites a run change touches. Existing suites are filled in once.
static V10_SUITE_STATS: LazyLock<String> = LazyLock::new(|| {
    const REFRESH: &str = r#"
UPDATE eval_suite_stats SET
  (latest_id, latest_status, latest_passed, latest_failed, latest_total, latest_created_at) =
    (SELECT id, status, passed, failed, total, created_at FROM eval_runs
     WHERE suite_id = eval_suite_stats.suite_id ORDER BY created_at DESC, id DESC LIMIT 1),
  trend =
    (SELECT json_group_array(json_array(passed, total) ORDER BY created_at, id)
     FROM (SELECT passed, total, created_at, id FROM eval_runs
           WHERE suite_id = eval_suite_stats.suite_id AND status = 'completed' AND total > 0
           ORDER BY created_at DESC, id DESC LIMIT 10))
  WHERE $SUITES"#;
    format!(
        r#"
CREATE TABLE eval_suite_stats (
  suite_id TEXT PRIMARY KEY REFERENCES eval_suites(id) ON DELETE CASCADE,
  case_count INTEGER NOT NULL DEFAULT 0,
  runs INTEGER NOT NULL DEFAULT 0,
  passed INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  latest_id TEXT,
  latest_status TEXT,
  latest_passed INTEGER,
  latest_failed INTEGER,
  latest_total INTEGER,
  latest_created_at INTEGER,
  trend TEXT NOT NULL DEFAULT '[]'
);
INSERT INTO eval_suite_stats (suite_id, case_count, runs, passed, failed)
  SELECT s.id,
         (SELECT COUNT(*) FROM eval_cases c WHERE c.suite_id = s.id),
         (SELECT COUNT(*) FROM eval_runs r WHERE r.suite_id = s.id),
         (SELECT COALESCE(SUM(passed), 0) FROM eval_runs r WHERE r.suite_id = s.id),
         (SELECT COALESCE(SUM(failed), 0) FROM eval_runs r WHERE r.suite_id = s.id)
  FROM eval_suites s;
{backfill};
CREATE TRIGGER eval_suite_stats_new AFTER INSERT ON eval_suites BEGIN
  INSERT INTO eval_suite_stats (suite_id) VALUES (NEW.id);
END;
CREATE TRIGGER eval_suite_stats_case_added AFTER INSERT ON eval_cases BEGIN
  UPDATE eval_suite_stats SET case_count = case_count + 1 WHERE suite_id = NEW.suite_id;
END;
CREATE TRIGGER eval_suite_stats_case_removed AFTER DELETE ON eval_cases BEGIN
  UPDATE eval_suite_stats SET case_count = case_count - 1 WHERE suite_id = OLD.suite_id;
END;
CREATE TRIGGER eval_suite_stats_case_moved AFTER UPDATE OF suite_id ON eval_cases
  WHEN OLD.suite_id IS NOT NEW.suite_id BEGIN
  UPDATE eval_suite_stats SET case_count = case_count - 1 WHERE suite_id = OLD.suite_id;
  UPDATE eval_suite_stats SET case_count = case_count + 1 WHERE suite_id = NEW.suite_id;
END;
{run_triggers}"#,
        backfill = REFRESH.replace("$SUITES", "1"),
        run_triggers = run_triggers(REFRESH),
    )
});

/// The three triggers that keep a suite's run totals, latest run and trend current;
/// `refresh` re-reads the latest run and the trend for the suites `$SUITES` selects.
fn run_triggers(refresh: &str) -> String {
    let refresh = |suites: &str| refresh.replace("$SUITES", suites);
    format!(
        r#"
CREATE TRIGGER eval_suite_stats_run_added AFTER INSERT ON eval_runs BEGIN
  UPDATE eval_suite_stats
    SET runs = runs + 1, passed = passed + NEW.passed, failed = failed + NEW.failed
    WHERE suite_id = NEW.suite_id;
  {run_added};
END;
CREATE TRIGGER eval_suite_stats_run_removed AFTER DELETE ON eval_runs BEGIN
  UPDATE eval_suite_stats
    SET runs = runs - 1, passed = passed - OLD.passed, failed = failed - OLD.failed
    WHERE suite_id = OLD.suite_id;
  {run_removed};
END;
CREATE TRIGGER eval_suite_stats_run_changed
  AFTER UPDATE OF suite_id, status, passed, failed, total, created_at ON eval_runs BEGIN
  UPDATE eval_suite_stats
    SET runs = runs - 1, passed = passed - OLD.passed, failed = failed - OLD.failed
    WHERE suite_id = OLD.suite_id;
  UPDATE eval_suite_stats
    SET runs = runs + 1, passed = passed + NEW.passed, failed = failed + NEW.failed
    WHERE suite_id = NEW.suite_id;
  {run_changed};
END;
"#,
        run_added = refresh("suite_id = NEW.suite_id"),
        run_removed = refresh("suite_id = OLD.suite_id"),
        run_changed = refresh("suite_id IN (OLD.suite_id, NEW.suite_id)"),
    )
}

/// The run triggers of V10 again, with a trend query that SQLite before 3.44 parses (an
/// aggregate with `ORDER BY` inside it is newer), so the store opens in the `sqlite3` of
/// current LTS distributions and in Python's `sqlite3` module: the ten runs are put in
/// order by a subquery and aggregated in that order.
static V12_PORTABLE_TRIGGERS: LazyLock<String> = LazyLock::new(|| {
    const REFRESH: &str = r#"
UPDATE eval_suite_stats SET
  (latest_id, latest_status, latest_passed, latest_failed, latest_total, latest_created_at) =
    (SELECT id, status, passed, failed, total, created_at FROM eval_runs
     WHERE suite_id = eval_suite_stats.suite_id ORDER BY created_at DESC, id DESC LIMIT 1),
  trend =
    (SELECT json_group_array(json_array(passed, total))
     FROM (SELECT passed, total FROM
            (SELECT passed, total, created_at, id FROM eval_runs
             WHERE suite_id = eval_suite_stats.suite_id AND status = 'completed' AND total > 0
             ORDER BY created_at DESC, id DESC LIMIT 10)
           ORDER BY created_at, id))
  WHERE $SUITES"#;
    format!(
        "DROP TRIGGER eval_suite_stats_run_added;
DROP TRIGGER eval_suite_stats_run_removed;
DROP TRIGGER eval_suite_stats_run_changed;
{}",
        run_triggers(REFRESH)
    )
});

/// A per-project counter that changes whenever anything the suite list shows changes (a
/// suite added, edited or removed; a case or run moving its summary row), from whichever
/// connection or process wrote it, so a rendered list can be reused while it holds.
const V11_SUITES_VERSION: &str = r#"
ALTER TABLE projects ADD COLUMN suites_version INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER suites_version_suite_added AFTER INSERT ON eval_suites BEGIN
  UPDATE projects SET suites_version = suites_version + 1 WHERE id = NEW.project_id;
END;
CREATE TRIGGER suites_version_suite_changed AFTER UPDATE ON eval_suites BEGIN
  UPDATE projects SET suites_version = suites_version + 1
    WHERE id IN (OLD.project_id, NEW.project_id);
END;
CREATE TRIGGER suites_version_suite_removed AFTER DELETE ON eval_suites BEGIN
  UPDATE projects SET suites_version = suites_version + 1 WHERE id = OLD.project_id;
END;
CREATE TRIGGER suites_version_stats_changed AFTER UPDATE ON eval_suite_stats BEGIN
  UPDATE projects SET suites_version = suites_version + 1
    WHERE id = (SELECT project_id FROM eval_suites WHERE id = NEW.suite_id);
END;
"#;

/// Leases and idempotency outcomes (see `service::leases`).
///
/// - A run or an authoring job belongs to the process that drives it (`owner`) for as long
///   as that process keeps renewing `lease_until`; any process sweeping the store takes over
///   what no live process holds. Active runs get a lease from their last heartbeat (so a run
///   another process is still driving is not taken over at once).
/// - Idempotency keys are scoped to the principal (organization and member) instead of the
///   organization. A claim carries its owner and lease like a run, `committed` (set in the
///   same transaction as any write the keyed request made, so a claim whose request died
///   tells whether its write happened) and `role` (the caller's project role when the
///   answer was recorded, checked again before a replay). Records from before this
///   migration are dropped: they were scoped to the organization alone and may hold secret
///   values in clear; they lived 24 hours at most.
const V13_LEASES: &str = r#"
ALTER TABLE eval_runs ADD COLUMN lease_until INTEGER;
UPDATE eval_runs SET lease_until = COALESCE(heartbeat_at, 0) + 10000
  WHERE status IN ('pending', 'running');
ALTER TABLE authoring_jobs ADD COLUMN owner TEXT;
ALTER TABLE authoring_jobs ADD COLUMN lease_until INTEGER;
DROP TABLE idempotency_keys;
CREATE TABLE idempotency_keys (
  org_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  status INTEGER,
  body BLOB,
  created_at INTEGER NOT NULL,
  owner TEXT,
  lease_until INTEGER NOT NULL DEFAULT 0,
  committed INTEGER NOT NULL DEFAULT 0,
  project_id TEXT,
  role TEXT,
  PRIMARY KEY (org_id, user_id, key)
);
CREATE INDEX idempotency_keys_age ON idempotency_keys(created_at);
CREATE INDEX idempotency_keys_claimed ON idempotency_keys(lease_until) WHERE status IS NULL;
DROP INDEX authoring_jobs_key;
CREATE UNIQUE INDEX authoring_jobs_key ON authoring_jobs(org_id, user_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
"#;

/// Store-wide settings; for now the sealed value that tells whether the secret key opening
/// the store is the one its secrets were sealed with (see `store::secrets`).
const V14_STORE_META: &str = r#"
CREATE TABLE store_meta (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
"#;

/// Roots an environment gives every server of its runs (JSON, `NULL`: each server's own).
const V15_ENVIRONMENT_ROOTS: &str = r#"
ALTER TABLE environments ADD COLUMN roots TEXT;
"#;

fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(V1),
        M::up(V2_AUTHORING),
        M::up(V3_RUNS),
        M::up(V4_IDEMPOTENCY),
        M::up(V5_INGEST),
        M::up(V6_SCHEDULES),
        M::up(V7_PROJECT_RUNS),
        M::up(V8_HOST_NAMES),
        M::up(V9_SUITE_SUMMARY),
        M::up(&V10_SUITE_STATS),
        M::up(V11_SUITES_VERSION),
        M::up(&V12_PORTABLE_TRIGGERS),
        M::up(V13_LEASES),
        M::up(V14_STORE_META),
        M::up(V15_ENVIRONMENT_ROOTS),
    ])
}

pub fn apply(conn: &mut Connection) -> Result<()> {
    migrations()
        .to_latest(conn)
        .map_err(|e| Error::internal(format!("cannot migrate the database: {e}")))
}

#[cfg(test)]
mod tests {
    #[test]
    fn migrations_are_valid() {
        assert!(super::migrations().validate().is_ok());
    }

    /// Duplicate host names from before V8 are renamed oldest-first, never lost, and the
    /// unique index then holds.
    #[test]
    fn v8_renames_duplicate_host_names() {
        let mut c = rusqlite::Connection::open_in_memory().unwrap();
        // Hosts alone, without the projects they would belong to.
        c.pragma_update(None, "foreign_keys", "OFF").unwrap();
        super::migrations().to_version(&mut c, 7).unwrap();
        let rows = [
            ("h1", "p1", "ci", 1),
            ("h2", "p1", "ci", 2),
            ("h3", "p1", "ci", 3),
            ("h4", "p1", "ci (2)", 4),
            ("h5", "p2", "ci", 5),
            ("h6", "p1", "other", 6),
        ];
        for (id, p, name, at) in rows {
            c.execute(
                "INSERT INTO hosts (id, project_id, name, config, created_at, updated_at) VALUES (?1, ?2, ?3, '{}', ?4, ?4)",
                rusqlite::params![id, p, name, at],
            )
            .unwrap();
        }
        super::migrations().to_latest(&mut c).unwrap();
        let names: Vec<(String, String)> = c
            .prepare("SELECT id, name FROM hosts ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let names: Vec<(&str, &str)> = names
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("h1", "ci"),
                ("h2", "ci (h2)"),
                ("h3", "ci (3)"),
                ("h4", "ci (2)"),
                ("h5", "ci"),
                ("h6", "other"),
            ]
        );
        let dup = c.execute(
            "INSERT INTO hosts (id, project_id, name, config, created_at, updated_at) VALUES ('h7', 'p1', 'ci', '{}', 7, 7)",
            [],
        );
        assert!(dup.is_err(), "the unique index holds");
    }

    /// Suites from before V10 get their summary row filled in from their cases and runs,
    /// and the triggers keep it current from then on.
    #[test]
    fn v10_fills_in_and_keeps_suite_stats() {
        let mut c = rusqlite::Connection::open_in_memory().unwrap();
        c.pragma_update(None, "foreign_keys", "OFF").unwrap();
        super::migrations().to_version(&mut c, 9).unwrap();
        c.execute_batch(
            "INSERT INTO eval_suites (id, project_id, name, created_at, updated_at)
               VALUES ('s1', 'p', 'one', 1, 1), ('s2', 'p', 'two', 2, 2);
             INSERT INTO eval_cases (id, suite_id, position, body, created_at, updated_at)
               VALUES ('c1', 's1', 0, '{}', 1, 1), ('c2', 's1', 1, '{}', 1, 1);
             INSERT INTO eval_runs (id, suite_id, project_id, run_number, status, passed, failed, total, source, created_at)
               VALUES ('r1', 's1', 'p', 1, 'completed', 2, 0, 2, 'ui', 10),
                      ('r2', 's1', 'p', 2, 'failed', 0, 0, 2, 'ui', 20),
                      ('r3', 's1', 'p', 3, 'completed', 1, 1, 2, 'ui', 30);",
        )
        .unwrap();
        super::migrations().to_latest(&mut c).unwrap();
        let stats = |c: &rusqlite::Connection,
                     id: &str|
         -> (i64, i64, i64, i64, Option<String>, String) {
            c.query_row(
                "SELECT case_count, runs, passed, failed, latest_id, trend FROM eval_suite_stats WHERE suite_id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)),
            )
            .unwrap()
        };
        assert_eq!(
            stats(&c, "s1"),
            (2, 3, 3, 1, Some("r3".into()), "[[2,2],[1,2]]".into())
        );
        assert_eq!(stats(&c, "s2"), (0, 0, 0, 0, None, "[]".into()));

        c.execute_batch(
            "INSERT INTO eval_suites (id, project_id, name, created_at, updated_at)
               VALUES ('s3', 'p', 'three', 3, 3);
             INSERT INTO eval_cases (id, suite_id, position, body, created_at, updated_at)
               VALUES ('c3', 's3', 0, '{}', 3, 3);
             DELETE FROM eval_cases WHERE id = 'c1';
             INSERT INTO eval_runs (id, suite_id, project_id, run_number, status, passed, failed, total, source, created_at)
               VALUES ('r4', 's1', 'p', 4, 'running', 0, 0, 2, 'ui', 40);",
        )
        .unwrap();
        assert_eq!(stats(&c, "s3"), (1, 0, 0, 0, None, "[]".into()));
        assert_eq!(
            stats(&c, "s1"),
            (1, 4, 3, 1, Some("r4".into()), "[[2,2],[1,2]]".into())
        );
        c.execute_batch(
            "UPDATE eval_runs SET status = 'completed', passed = 1, failed = 1 WHERE id = 'r4';
             UPDATE eval_runs SET heartbeat_at = 50 WHERE id = 'r4';
             DELETE FROM eval_runs WHERE id = 'r1';",
        )
        .unwrap();
        assert_eq!(
            stats(&c, "s1"),
            (1, 3, 2, 2, Some("r4".into()), "[[1,2],[1,2]]".into())
        );
        // A deleted suite takes its row along, while its runs and cases cascade away.
        c.pragma_update(None, "foreign_keys", "ON").unwrap();
        c.execute("DELETE FROM eval_suites WHERE id = 's1'", [])
            .unwrap();
        let left: Vec<String> = c
            .prepare("SELECT suite_id FROM eval_suite_stats ORDER BY suite_id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(left, ["s2", "s3"]);
    }

    /// Every change the suite list shows moves the project's `suites_version`; a
    /// heartbeat does not.
    #[test]
    fn v11_versions_what_the_suite_list_shows() {
        let mut c = rusqlite::Connection::open_in_memory().unwrap();
        super::migrations().to_latest(&mut c).unwrap();
        c.execute_batch(
            "INSERT INTO organizations (id, name, created_at, updated_at) VALUES ('o', 'o', 0, 0);
             INSERT INTO projects (id, org_id, name, created_at, updated_at) VALUES ('p', 'o', 'p', 0, 0);",
        )
        .unwrap();
        let version = |c: &rusqlite::Connection| -> i64 {
            c.query_row(
                "SELECT suites_version FROM projects WHERE id = 'p'",
                [],
                |r| r.get(0),
            )
            .unwrap()
        };
        let mut last = version(&c);
        for (what, sql, moves) in [
            (
                "a suite",
                "INSERT INTO eval_suites (id, project_id, name, created_at, updated_at) VALUES ('s', 'p', 's', 1, 1)",
                true,
            ),
            (
                "a case",
                "INSERT INTO eval_cases (id, suite_id, position, body, created_at, updated_at) VALUES ('c', 's', 0, '{}', 1, 1)",
                true,
            ),
            (
                "a run",
                "INSERT INTO eval_runs (id, suite_id, project_id, run_number, status, source, created_at) VALUES ('r', 's', 'p', 1, 'running', 'ui', 2)",
                true,
            ),
            (
                "a heartbeat",
                "UPDATE eval_runs SET heartbeat_at = 3 WHERE id = 'r'",
                false,
            ),
            (
                "a result",
                "UPDATE eval_runs SET passed = 1, total = 1, status = 'completed' WHERE id = 'r'",
                true,
            ),
            (
                "a rename",
                "UPDATE eval_suites SET name = 't' WHERE id = 's'",
                true,
            ),
            ("a removal", "DELETE FROM eval_suites WHERE id = 's'", true),
        ] {
            c.execute(sql, []).unwrap();
            let now = version(&c);
            assert_eq!(now != last, moves, "{what}: {last} → {now}");
            last = now;
        }
    }

    /// V13: active runs from before get a lease from their last heartbeat (a run another
    /// process still drives is not taken over at once); renewing a lease moves no suite-list
    /// version; keys are scoped to the principal.
    #[test]
    fn v13_leases_runs_and_scopes_keys_to_the_principal() {
        let mut c = rusqlite::Connection::open_in_memory().unwrap();
        c.pragma_update(None, "foreign_keys", "OFF").unwrap();
        super::migrations().to_version(&mut c, 11).unwrap();
        c.execute_batch(
            "INSERT INTO organizations (id, name, created_at, updated_at) VALUES ('o', 'o', 0, 0);
             INSERT INTO projects (id, org_id, name, created_at, updated_at) VALUES ('p', 'o', 'p', 0, 0);
             INSERT INTO eval_suites (id, project_id, name, created_at, updated_at) VALUES ('s', 'p', 's', 1, 1);
             INSERT INTO eval_runs (id, suite_id, project_id, run_number, status, source, created_at, heartbeat_at)
               VALUES ('live', 's', 'p', 1, 'running', 'ui', 2, 5000),
                      ('done', 's', 'p', 2, 'completed', 'ui', 3, 5000);
             INSERT INTO idempotency_keys (org_id, key, fingerprint, created_at) VALUES ('o', 'k', 'f', 1);",
        )
        .unwrap();
        super::migrations().to_latest(&mut c).unwrap();
        let lease = |id: &str| -> Option<i64> {
            c.query_row(
                "SELECT lease_until FROM eval_runs WHERE id = ?1",
                [id],
                |r| r.get(0),
            )
            .unwrap()
        };
        assert_eq!(lease("live"), Some(15_000));
        assert_eq!(lease("done"), None);
        let version = |c: &rusqlite::Connection| -> i64 {
            c.query_row(
                "SELECT suites_version FROM projects WHERE id = 'p'",
                [],
                |r| r.get(0),
            )
            .unwrap()
        };
        let before = version(&c);
        c.execute(
            "UPDATE eval_runs SET lease_until = 99999, owner = 'x' WHERE id = 'live'",
            [],
        )
        .unwrap();
        assert_eq!(version(&c), before, "a lease renewal moves no version");
        for user in ["u1", "u2"] {
            c.execute(
                "INSERT INTO idempotency_keys (org_id, user_id, key, fingerprint, created_at) VALUES ('o', ?1, 'same', 'f', 1)",
                [user],
            )
            .unwrap();
        }
    }
}
