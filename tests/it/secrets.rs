//! Secrets at rest: the database file, its WAL and the idempotency records never hold a
//! header value, an environment value, an OAuth token or a client secret in clear.

use evaldeck::service::store::prelude::*;
use reqwest::Method;
use serde_json::json;

use evaldeck::service::store::Store;
use evaldeck_testkit::served::Harness;

const SECRETS: [&str; 5] = [
    "HEADER-SECRET-1",
    "ENV-SECRET-2",
    "ACCESS-SECRET-3",
    "REFRESH-SECRET-4",
    "CLIENT-SECRET-5",
];

/// Every byte of the database file and its WAL.
fn raw(db: &std::path::Path) -> Vec<u8> {
    let mut all = std::fs::read(db).unwrap();
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    all.extend(std::fs::read(std::path::PathBuf::from(wal)).unwrap_or_default());
    all
}

fn holds(bytes: &[u8], needle: &str) -> bool {
    bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
}

async fn keyed(h: &Harness, method: Method, path: &str, key: &str, body: serde_json::Value) -> u16 {
    h.http
        .request(method, h.url(path))
        .bearer_auth(&h.owner_key)
        .header("Idempotency-Key", key)
        .json(&body)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn secrets_are_sealed_in_the_file_and_absent_from_idempotency_records() {
    let h = Harness::start().await;
    let p = h.project.clone();
    let created = keyed(&h, Method::POST, &format!("/projects/{p}/servers"), "k1",
        json!({"name": "remote", "transport": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer HEADER-SECRET-1"}}})).await;
    assert_eq!(created, 201);
    let created = keyed(&h, Method::POST, &format!("/projects/{p}/servers"), "k2",
        json!({"name": "local", "transport": {"type": "stdio", "command": "true", "env": {"API_KEY": "ENV-SECRET-2"}}})).await;
    assert_eq!(created, 201);
    let patched = keyed(
        &h,
        Method::PATCH,
        &format!("/projects/{p}/servers/remote"),
        "k3",
        json!({"enabled": true}),
    )
    .await;
    assert_eq!(patched, 200);
    let imported = keyed(&h, Method::POST, &format!("/projects/{p}/servers/remote/oauth/import-tokens"), "k4",
        json!({"serverUrl": "http://127.0.0.1:9/mcp", "clientInformation": {"clientId": "cid", "clientSecret": "CLIENT-SECRET-5"},
               "tokens": {"access_token": "ACCESS-SECRET-3", "refresh_token": "REFRESH-SECRET-4", "expires_in": 3600}})).await;
    assert_eq!(imported, 200);

    // The service still reads them: an admin sees the values, the tokens are usable.
    let s = h
        .get(&format!("/projects/{p}/servers/remote"), &h.owner_key)
        .await;
    assert_eq!(
        s.ok(200)["config"]["transport"]["headers"]["Authorization"],
        "Bearer HEADER-SECRET-1"
    );
    let s = h
        .get(&format!("/projects/{p}/servers/local"), &h.owner_key)
        .await;
    assert_eq!(
        s.ok(200)["config"]["transport"]["env"]["API_KEY"],
        "ENV-SECRET-2"
    );
    let server = h.service.store().server(&p, "remote").unwrap();
    let tokens = h.service.store().tokens(&server.id).unwrap().unwrap();
    assert_eq!(tokens.access_token, "ACCESS-SECRET-3");

    let db = h.db_path();
    let bytes = raw(&db);
    for secret in SECRETS {
        assert!(
            !holds(&bytes, secret),
            "{secret} is in the database file in clear"
        );
    }
    // The recorded answers of the keyed writes hold none either.
    let c = rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap();
    let bodies: Vec<Vec<u8>> = c
        .prepare("SELECT body FROM idempotency_keys WHERE body IS NOT NULL")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(bodies.len(), 4);
    for b in &bodies {
        for secret in SECRETS {
            assert!(
                !holds(b, secret),
                "{secret} in {}",
                String::from_utf8_lossy(b)
            );
        }
    }
    // The key lives beside the store, readable by its owner only.
    let mut key = db.as_os_str().to_owned();
    key.push(".key");
    let meta = std::fs::metadata(std::path::PathBuf::from(key)).unwrap();
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
}

/// A store written before sealing (values in clear) is sealed when it is next opened,
/// and the clear values are gone from the file; another key does not open it.
#[tokio::test]
async fn secrets_stored_in_clear_are_sealed_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("old.sqlite3");
    let (project, server) = {
        let store = Store::open(&db).unwrap();
        let local = store.ensure_seeded("evaldeck").unwrap();
        let project = store.default_project(&local.org_id).unwrap().unwrap();
        let server = store.server(&project, "demo").unwrap().id;
        (project, server)
    };
    {
        // What an older evaldeck wrote: the values as they are.
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute(
            "UPDATE servers SET config = ?2 WHERE id = ?1",
            rusqlite::params![server, json!({"transport": {"type": "stdio", "command": "x", "env": {"TOKEN": "ENV-SECRET-2"}}}).to_string()],
        )
        .unwrap();
        c.execute(
            "INSERT INTO oauth_tokens (server_id, server_url, client_secret, access_token, refresh_token, updated_at)
             VALUES (?1, 'http://x', 'CLIENT-SECRET-5', 'ACCESS-SECRET-3', 'REFRESH-SECRET-4', 0)",
            [&server],
        )
        .unwrap();
        c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
    }
    assert!(holds(&raw(&db), "ENV-SECRET-2"), "the fixture is in clear");
    let store = Store::open(&db).unwrap();
    let s = store.server(&project, &server).unwrap();
    match s.config.unwrap().transport {
        evaldeck::spec::server::Transport::Stdio { env, .. } => {
            assert_eq!(env["TOKEN"], "ENV-SECRET-2")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        store
            .tokens(&server)
            .unwrap()
            .unwrap()
            .refresh_token
            .as_deref(),
        Some("REFRESH-SECRET-4")
    );
    drop(store);
    let bytes = raw(&db);
    for secret in [
        "ENV-SECRET-2",
        "ACCESS-SECRET-3",
        "REFRESH-SECRET-4",
        "CLIENT-SECRET-5",
    ] {
        assert!(
            !holds(&bytes, secret),
            "{secret} still in clear after the migration"
        );
    }

    // EVALDECK_SECRET_KEY that is not this store's key: refused with a message, not a
    // failure on every secret later.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_evaldeck"))
        .arg("--db")
        .arg(&db)
        .args(["servers", "list"])
        .env("EVALDECK_SECRET_KEY", "ab".repeat(32))
        .env_remove("EVALDECK_BASE_URL")
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("secret key"), "{text}");
}
