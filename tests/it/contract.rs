//! Issue 2's contract over real HTTP: every 401 variant, 403, 404, validation errors with
//! field paths, the rate limit, pagination, and the environment and host rules run once
//! through `Embedded` and once through `Remote` with one test body.

use std::collections::HashSet;
use std::time::Duration;

use evaldeck::api::RateLimit;
use evaldeck::client::{Backend, Remote, RetryPolicy};
use evaldeck::service::store::projects::ProjectRole;
use evaldeck::spec::Code;
use evaldeck::spec::catalog::{ChatSessionQuery, ProjectQuery};
use evaldeck::spec::environment::{
    EnvironmentCreate, EnvironmentPatch, EnvironmentQuery, Patch, PluginVersionCreate,
    ServerGroupCreate,
};
use evaldeck::spec::host::{HostCreate, HostPatch};
use evaldeck::spec::page::PageRequest;
use evaldeck::spec::server::{ServerConfig, ServerCreate, Transport};
use reqwest::Method;
use reqwest::header::RETRY_AFTER;
use serde_json::{Value, json};

use evaldeck_testkit::served::Harness;

// ---------------------------------------------------------------------------------------
// 401

#[tokio::test]
async fn unauthorized_without_a_usable_key() {
    let h = Harness::start().await;
    // No Authorization header at all.
    h.call(Method::GET, "/me", None, None)
        .await
        .err(401, "UNAUTHORIZED");
    // Malformed headers: another scheme, a scheme without a token, a bare key.
    for header in [
        format!("Basic {}", h.owner_key),
        "Bearer".to_string(),
        "Bearer    ".to_string(),
        h.owner_key.clone(),
    ] {
        let res = h
            .http
            .get(h.url("/me"))
            .header("Authorization", header.as_str())
            .send()
            .await
            .unwrap();
        evaldeck_testkit::served::Resp::from(res)
            .await
            .err(401, "UNAUTHORIZED");
    }
    // Keys the service never issued.
    for key in ["sk_notakeyatall", "pk_live_123", "sk_"] {
        h.get("/me", key).await.err(401, "UNAUTHORIZED");
    }
    // None of these is an orphaned key.
    let r = h.get("/me", "sk_notakeyatall").await;
    assert_eq!(r.reason(), None);
    // Unknown routes and key management are behind auth too.
    h.call(Method::GET, "/nope", None, None)
        .await
        .err(401, "UNAUTHORIZED");
    h.call(Method::GET, "/api-keys", None, None)
        .await
        .err(401, "UNAUTHORIZED");
    // And the valid key works.
    h.get("/me", &h.owner_key).await.ok(200);
}

#[tokio::test]
async fn revocation_takes_effect_on_the_very_next_request() {
    let h = Harness::start().await;
    let (who, key) = h.key_for(&h.owner.org_id, &h.owner.user_id);
    h.get("/me", &key).await.ok(200);
    let info = h
        .service
        .store()
        .revoke_key(who.key_id.as_deref().unwrap())
        .unwrap();
    assert!(info.revoked_at.is_some());
    let r = h.get("/me", &key).await;
    r.err(401, "UNAUTHORIZED");
    assert_eq!(r.reason(), None, "revoked is not orphaned");
    // Through the remote backend: the same error type.
    let e = h.remote(&key).me().await.unwrap_err();
    assert_eq!(e.code, Code::Unauthorized);
    // Other keys of the same owner are untouched.
    h.get("/me", &h.owner_key).await.ok(200);
}

#[tokio::test]
async fn a_key_whose_organization_is_gone_is_orphaned() {
    let h = Harness::start().await;
    let (who, key, project) = h.other_org();
    // Give the organization something to cascade through: a host and an environment.
    let host = h
        .call(
            Method::POST,
            &format!("/projects/{project}/hosts"),
            Some(&key),
            Some(json!({"name": "h", "template": "claude"})),
        )
        .await;
    let host_id = host.ok(201)["id"].as_str().unwrap().to_string();
    h.call(
        Method::POST,
        &format!("/projects/{project}/environments"),
        Some(&key),
        Some(json!({"name": "e", "hostId": host_id})),
    )
    .await
    .ok(201);
    h.get("/me", &key).await.ok(200);

    h.service.store().delete_org(&who.org_id).unwrap();
    let r = h.get("/me", &key).await;
    r.err(401, "UNAUTHORIZED");
    assert_eq!(r.reason(), Some("ORPHANED_KEY"), "{}", r.text);
    let e = h.remote(&key).me().await.unwrap_err();
    assert_eq!(e.code, Code::Unauthorized);
    assert_eq!(e.reason(), Some("ORPHANED_KEY"));
    // The local organization is unaffected.
    h.get("/me", &h.owner_key).await.ok(200);
}

// ---------------------------------------------------------------------------------------
// 403

#[tokio::test]
async fn forbidden_for_a_member_without_project_membership() {
    let h = Harness::start().await;
    let (who, key) = h.member("member", None);
    let p = &h.project;
    for path in [
        format!("/projects/{p}/hosts"),
        format!("/projects/{p}/environments"),
        format!("/projects/{p}/eval-suites"),
        format!("/projects/{p}/servers"),
    ] {
        h.get(&path, &key).await.err(403, "FORBIDDEN");
    }
    // The project list hides it rather than failing.
    let list = h.get("/projects", &key).await;
    assert_eq!(list.ok(200)["items"], json!([]));
    for (name, b) in h.backends(&who, &key) {
        let e = b.hosts(p, &PageRequest::default()).await.expect_err(name);
        assert_eq!(e.code, Code::Forbidden, "{name}");
    }
}

#[tokio::test]
async fn forbidden_for_a_project_of_another_organization() {
    let h = Harness::start().await;
    let (_, other_key, other_project) = h.other_org();
    // The local owner's key cannot reach the other organization's project …
    h.get(&format!("/projects/{other_project}/hosts"), &h.owner_key)
        .await
        .err(403, "FORBIDDEN");
    h.call(
        Method::POST,
        &format!("/projects/{other_project}/hosts"),
        Some(&h.owner_key),
        Some(json!({"name": "x", "template": "cursor"})),
    )
    .await
    .err(403, "FORBIDDEN");
    // … nor the other way round.
    h.get(&format!("/projects/{}/environments", h.project), &other_key)
        .await
        .err(403, "FORBIDDEN");
    for (name, b) in h.backends(&h.owner, &h.owner_key) {
        let e = b
            .environments(&other_project, &EnvironmentQuery::default())
            .await
            .expect_err(name);
        assert_eq!(e.code, Code::Forbidden, "{name}");
    }
}

#[tokio::test]
async fn key_management_is_forbidden_to_every_key() {
    let h = Harness::start().await;
    let (_, admin_key) = h.member("admin", None);
    for key in [&h.owner_key, &admin_key] {
        h.get("/api-keys", key).await.err(403, "FORBIDDEN");
        h.call(
            Method::POST,
            "/api-keys",
            Some(key),
            Some(json!({"name": "ci", "organizationId": h.owner.org_id})),
        )
        .await
        .err(403, "FORBIDDEN");
        h.call(Method::POST, "/api-keys", Some(key), None)
            .await
            .err(403, "FORBIDDEN");
        let id = &h.service.store().keys().unwrap()[0].id;
        h.call(Method::DELETE, &format!("/api-keys/{id}"), Some(key), None)
            .await
            .err(403, "FORBIDDEN");
        // Every method on /api-keys and on every path below it, bodies or not.
        let below = [
            format!("/api-keys/{id}"),
            "/api-keys/x".to_string(),
            format!("/api-keys/{id}/revoke"),
            "/api-keys/a/b/c".to_string(),
        ];
        for path in std::iter::once("/api-keys").chain(below.iter().map(String::as_str)) {
            for m in [
                Method::GET,
                Method::POST,
                Method::PUT,
                Method::PATCH,
                Method::DELETE,
            ] {
                let body = (m != Method::GET).then(|| json!({"name": "x", "revoked": true}));
                h.call(m.clone(), path, Some(key), body)
                    .await
                    .err(403, "FORBIDDEN");
            }
            for m in [Method::HEAD, Method::OPTIONS] {
                let r = h.call(m.clone(), path, Some(key), None).await;
                assert_eq!(r.status.as_u16(), 403, "{m} {path}");
            }
        }
        // Not even a malformed body gets past the refusal.
        h.raw(
            Method::PATCH,
            &format!("/api-keys/{id}"),
            Some(key),
            Some("application/json"),
            b"{not json".to_vec(),
        )
        .await
        .err(403, "FORBIDDEN");
    }
    // Nothing was revoked or minted.
    let keys = h.service.store().keys().unwrap();
    assert_eq!(keys.len(), 2);
    assert!(keys.iter().all(|k| k.revoked_at.is_none()));
}

#[tokio::test]
async fn a_plain_member_reads_but_cannot_write() {
    let h = Harness::start().await;
    let p = h.project.clone();
    let (who, key) = h.member("member", Some((&p, ProjectRole::Member)));
    let hosts = h.get(&format!("/projects/{p}/hosts"), &key).await;
    let host_id = hosts.ok(200)["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let envs = h.get(&format!("/projects/{p}/environments"), &key).await;
    let env = envs.ok(200)["items"][0].clone();
    h.call(
        Method::POST,
        &format!("/projects/{p}/environments"),
        Some(&key),
        Some(json!({"name": "mine", "hostId": host_id})),
    )
    .await
    .err(403, "FORBIDDEN");
    h.call(
        Method::PATCH,
        &format!("/projects/{p}/environments/{}", env["id"].as_str().unwrap()),
        Some(&key),
        Some(json!({"expectedRevision": env["revision"], "name": "renamed"})),
    )
    .await
    .err(403, "FORBIDDEN");
    h.call(
        Method::POST,
        &format!("/projects/{p}/hosts"),
        Some(&key),
        Some(json!({"name": "x", "template": "cursor"})),
    )
    .await
    .err(403, "FORBIDDEN");
    h.call(
        Method::DELETE,
        &format!("/projects/{p}/hosts/{host_id}"),
        Some(&key),
        None,
    )
    .await
    .err(403, "FORBIDDEN");
    for (name, b) in h.backends(&who, &key) {
        let e = b
            .create_environment(
                &p,
                &EnvironmentCreate {
                    name: format!("mine-{name}"),
                    host_id: host_id.clone(),
                    ..Default::default()
                },
            )
            .await
            .expect_err(name);
        assert_eq!(e.code, Code::Forbidden, "{name}");
    }
    // Promoted to project admin, the same key may write.
    h.service
        .store()
        .set_project_member(&p, &who.user_id, ProjectRole::Admin)
        .unwrap();
    h.call(
        Method::POST,
        &format!("/projects/{p}/environments"),
        Some(&key),
        Some(json!({"name": "mine", "hostId": host_id})),
    )
    .await
    .ok(201);
}

// ---------------------------------------------------------------------------------------
// 404

#[tokio::test]
async fn not_found_answers_with_the_error_body() {
    let h = Harness::start().await;
    let k = &h.owner_key;
    let p = &h.project;
    h.get("/projects/prj_nope/hosts", k)
        .await
        .err(404, "NOT_FOUND");
    h.get(&format!("/projects/{p}/hosts/hst_nope"), k)
        .await
        .err(404, "NOT_FOUND");
    h.get(&format!("/projects/{p}/environments/env_nope"), k)
        .await
        .err(404, "NOT_FOUND");
    // An unknown route: the spec's body, nothing else.
    let r = h.get("/nope", k).await;
    r.err(404, "NOT_FOUND");
    let keys: HashSet<&str> = r
        .body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert!(
        keys.is_subset(&HashSet::from(["code", "message", "details"])),
        "{keys:?}"
    );
    // Outside /api/v1 as well.
    let r = h
        .http
        .get(format!("http://{}/nope", h.addr))
        .send()
        .await
        .unwrap();
    evaldeck_testkit::served::Resp::from(r)
        .await
        .err(404, "NOT_FOUND");
    // A known path with a method it does not answer.
    h.call(Method::DELETE, "/me", Some(k), None)
        .await
        .err(404, "NOT_FOUND");
    h.call(Method::PUT, &format!("/projects/{p}/hosts"), Some(k), None)
        .await
        .err(404, "NOT_FOUND");
    for (name, b) in h.backends(&h.owner, k) {
        let e = b.host(p, "hst_nope").await.expect_err(name);
        assert_eq!(e.code, Code::NotFound, "{name}");
        let e = b
            .hosts("prj_nope", &PageRequest::default())
            .await
            .expect_err(name);
        assert_eq!(e.code, Code::NotFound, "{name}");
    }
}

// ---------------------------------------------------------------------------------------
// 400 with field paths

#[tokio::test]
async fn validation_errors_name_the_field() {
    let h = Harness::start().await;
    let k = Some(h.owner_key.as_str());
    let hosts = format!("/projects/{}/hosts", h.project);
    let post = |body: Value| h.call(Method::POST, &hosts, k, Some(body));

    post(json!({})).await.invalid("/name", "required");
    post(json!({"name": "x", "template": "cursor", "config": {"modelId": "m"}}))
        .await
        .invalid("", "oneOf");
    post(json!({"name": "x"})).await.invalid("", "oneOf");
    post(json!({"name": "x", "template": "netscape"}))
        .await
        .invalid("/template", "enum");
    post(json!({"name": 5, "template": "cursor"}))
        .await
        .invalid("/name", "type");
    post(json!({"name": "x", "template": ["cursor"]}))
        .await
        .invalid("/template", "type");
    post(json!({"name": "x", "config": {}}))
        .await
        .invalid("/config/modelId", "required");
    post(json!({"name": "x", "template": "cursor", "colour": "red"}))
        .await
        .invalid("/colour", "additionalProperties");
    post(json!({"name": "", "template": "netscape"}))
        .await
        .invalid("/name", "minLength")
        .invalid("/template", "enum");

    let json_ct = Some("application/json");
    // Invalid JSON, invalid UTF-8, trailing garbage.
    // (The pointer says where the parser stopped.)
    h.raw(Method::POST, &hosts, k, json_ct, b"{\"name\":".to_vec())
        .await
        .invalid_rule("json");
    h.raw(
        Method::POST,
        &hosts,
        k,
        json_ct,
        b"{\"name\": \"x\",}".to_vec(),
    )
    .await
    .invalid_rule("json");
    h.raw(
        Method::POST,
        &hosts,
        k,
        json_ct,
        b"{\"name\": \"a\xff\xfe\"}".to_vec(),
    )
    .await
    .invalid("", "utf8");
    h.raw(
        Method::POST,
        &hosts,
        k,
        json_ct,
        br#"{"name":"x","template":"cursor"} {}"#.to_vec(),
    )
    .await
    .invalid("", "json");
    // Not JSON at all: 400, never 415.
    let body = br#"{"name":"x","template":"cursor"}"#.to_vec();
    h.raw(Method::POST, &hosts, k, Some("text/plain"), body.clone())
        .await
        .invalid("", "contentType");
    h.raw(
        Method::POST,
        &hosts,
        k,
        Some("application/x-www-form-urlencoded"),
        b"name=x".to_vec(),
    )
    .await
    .invalid("", "contentType");
    // JSON with parameters is JSON.
    h.raw(
        Method::POST,
        &hosts,
        k,
        Some("application/json; charset=utf-8"),
        body,
    )
    .await
    .ok(201);

    // PATCH environment without expectedRevision.
    let envs = h
        .get(
            &format!("/projects/{}/environments", h.project),
            &h.owner_key,
        )
        .await;
    let env_id = envs.ok(200)["items"][0]["id"].as_str().unwrap().to_string();
    let env_path = format!("/projects/{}/environments/{env_id}", h.project);
    h.call(Method::PATCH, &env_path, k, Some(json!({"name": "x"})))
        .await
        .invalid("/expectedRevision", "required");
    h.call(
        Method::PATCH,
        &env_path,
        k,
        Some(json!({"expectedRevision": "1", "name": "x"})),
    )
    .await
    .invalid("/expectedRevision", "type");
    h.call(
        Method::PATCH,
        &env_path,
        k,
        Some(json!({"expectedRevision": 1})),
    )
    .await
    .invalid("", "minProperties");
    // Archive and restore bound the revision like PATCH does; an array is not a body
    // (serde would otherwise read `[5]` as `{"expectedRevision": 5}`).
    for action in ["archive", "restore"] {
        let path = format!("{env_path}/{action}");
        for rev in [0, -5] {
            h.call(
                Method::POST,
                &path,
                k,
                Some(json!({"expectedRevision": rev})),
            )
            .await
            .invalid("/expectedRevision", "minimum");
        }
        h.call(Method::POST, &path, k, Some(json!([5])))
            .await
            .invalid("", "type");
    }
    h.raw(Method::POST, &hosts, k, json_ct, b"\"x\"".to_vec())
        .await
        .invalid("", "type");
    // A syntax fault is the fault, whatever field the decoder met first.
    h.raw(Method::POST, &hosts, k, json_ct, b"{\"a\":".to_vec())
        .await
        .invalid("", "json");

    // Suppressed check ids are counted as sent, before duplicates fold away.
    let suites = h
        .get(
            &format!("/projects/{}/eval-suites", h.project),
            &h.owner_key,
        )
        .await;
    let suite = suites.ok(200)["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let cases = format!("/projects/{}/eval-suites/{suite}/cases", h.project);
    let case = |n: usize| {
        json!({"title": "t", "steps": [{"id": "p1", "kind": "prompt", "prompt": "Say hi"}],
            "suppressedSuiteStandardCheckIds": vec!["call.schema"; n]})
    };
    h.call(Method::POST, &cases, k, Some(case(65)))
        .await
        .invalid("/suppressedSuiteStandardCheckIds", "maxItems");
    let made = h.call(Method::POST, &cases, k, Some(case(64))).await;
    assert_eq!(
        made.ok(201)["suppressedSuiteStandardCheckIds"],
        json!(["call.schema"])
    );

    // References must live in the same project.
    let elsewhere = h.new_project("elsewhere");
    let foreign_host = h
        .call(
            Method::POST,
            &format!("/projects/{elsewhere}/hosts"),
            k,
            Some(json!({"name": "x", "template": "claude"})),
        )
        .await
        .ok(201)["id"]
        .clone();
    h.call(
        Method::POST,
        &format!("/projects/{}/environments", h.project),
        k,
        Some(json!({"name": "cross", "hostId": foreign_host, "pluginVersionIds": ["plv_nope"]})),
    )
    .await
    .invalid("/hostId", "exists")
    .invalid("/pluginVersionIds/0", "exists");
    h.call(
        Method::POST,
        &format!("/projects/{}/environments", h.project),
        k,
        Some(json!({"name": "x".repeat(201), "hostId": foreign_host})),
    )
    .await
    .invalid("/name", "maxLength");

    // Query parameters.
    for q in ["limit=0", "limit=201", "limit=-1", "limit=many"] {
        let r = h.get(&format!("{hosts}?{q}"), &h.owner_key).await;
        r.err(400, "VALIDATION_ERROR");
        assert!(
            r.violations().iter().any(|(p, _)| p == "/limit"),
            "{q}: {}",
            r.text
        );
    }
    h.get(
        &format!("/projects/{}/environments?includeArchived=maybe", h.project),
        &h.owner_key,
    )
    .await
    .invalid("/includeArchived", "query");
    h.get("/chat-sessions?status=bogus", &h.owner_key)
        .await
        .invalid("/status", "enum");
    h.get("/chat-sessions?limit=0", &h.owner_key)
        .await
        .invalid("/limit", "range");
    h.get("/chat-sessions?status=archived", &h.owner_key)
        .await
        .ok(200);
}

#[tokio::test]
async fn body_size_limit_admits_the_largest_valid_body() {
    let h = Harness::start().await;
    let hosts = format!("/projects/{}/hosts", h.project);
    // 102400 characters, each a surrogate pair escaped as 12 bytes: ~1.2 MB on the wire.
    let notes = "\u{1F600}".repeat(102_400);
    let mut body = serde_json::to_string(&json!({
        "name": "big",
        "config": {"modelId": "openai/gpt-5", "notes": "NOTES"}
    }))
    .unwrap();
    let escaped = "\\ud83d\\ude00".repeat(102_400);
    body = body.replace("NOTES", &escaped);
    assert!(body.len() > 1_200_000, "{}", body.len());
    let r = h
        .raw(
            Method::POST,
            &hosts,
            Some(&h.owner_key),
            Some("application/json"),
            body.into_bytes(),
        )
        .await;
    assert!(
        !r.violations().iter().any(|(_, rule)| rule == "maxBodySize"),
        "{}",
        &r.text[..r.text.len().min(300)]
    );
    let created = r.ok(201);
    assert_eq!(created["config"]["notes"].as_str(), Some(notes.as_str()));

    // Well over the limit: 400 maxBodySize, never 413.
    let huge = format!(
        r#"{{"name":"huge","config":{{"modelId":"m","notes":"{}"}}}}"#,
        "a".repeat(6 * 1024 * 1024)
    );
    let r = h
        .raw(
            Method::POST,
            &hosts,
            Some(&h.owner_key),
            Some("application/json"),
            huge.into_bytes(),
        )
        .await;
    r.invalid("", "maxBodySize");
}

// ---------------------------------------------------------------------------------------
// 429

#[tokio::test]
async fn a_burst_of_ten_then_429_with_retry_after() {
    // A refill of one per hour: no loaded machine can race it.
    let h = Harness::with_rate_limit(Some(RateLimit {
        replenish: Duration::from_secs(3600),
        burst: 10,
    }))
    .await;
    let (_, second) = h.key_for(&h.owner.org_id, &h.owner.user_id);
    for i in 0..10 {
        let r = h.get("/me", &h.owner_key).await;
        assert_eq!(r.status.as_u16(), 200, "request {i}: {}", r.text);
    }
    let r = h.get("/me", &h.owner_key).await;
    r.err(429, "RATE_LIMITED");
    let retry_after = r
        .headers
        .get(RETRY_AFTER)
        .expect("a Retry-After header")
        .to_str()
        .unwrap();
    let secs: u64 = retry_after
        .parse()
        .unwrap_or_else(|_| panic!("an integer number of seconds: {retry_after:?}"));
    assert!(secs >= 1, "{secs}");
    // It stays limited, on every route.
    h.get(&format!("/projects/{}/hosts", h.project), &h.owner_key)
        .await
        .err(429, "RATE_LIMITED");
    // The remote backend surfaces the same code when it does not retry.
    let e = h.remote(&h.owner_key).me().await.unwrap_err();
    assert_eq!(e.code, Code::RateLimited);
    assert!(e.retry_after().is_some_and(|s| s >= 1));
    // Another key has its own allowance.
    for _ in 0..10 {
        h.get("/me", &second).await.ok(200);
    }
    h.get("/me", &second).await.err(429, "RATE_LIMITED");
    // Unauthenticated requests are answered 401, not counted against anyone.
    h.call(Method::GET, "/me", None, None)
        .await
        .err(401, "UNAUTHORIZED");
}

// ---------------------------------------------------------------------------------------
// Pagination

#[tokio::test]
async fn pages_cover_every_item_once_in_order() {
    let h = Harness::start().await;
    let hosts = format!("/projects/{}/hosts", h.project);
    let mut created = Vec::new();
    for i in 0..23 {
        let r = h
            .call(
                Method::POST,
                &hosts,
                Some(&h.owner_key),
                Some(json!({"name": format!("host {i:02}"), "template": "codex"})),
            )
            .await;
        created.push(r.ok(201)["id"].as_str().unwrap().to_string());
    }
    let all = h.get(&format!("{hosts}?limit=200"), &h.owner_key).await;
    let all: Vec<String> = all.ok(200)["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(all.len(), 24, "the seeded host and 23 more");
    assert_eq!(&all[1..], &created[..], "oldest first");

    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &cursor {
            Some(c) => format!("{hosts}?limit=5&cursor={c}"),
            None => format!("{hosts}?limit=5"),
        };
        let r = h.get(&path, &h.owner_key).await;
        let body = r.ok(200).clone();
        pages += 1;
        let items = body["items"].as_array().unwrap();
        assert!(items.len() <= 5);
        seen.extend(items.iter().map(|i| i["id"].as_str().unwrap().to_string()));
        match body.get("nextCursor") {
            Some(Value::String(c)) => {
                assert!(!items.is_empty());
                cursor = Some(c.clone());
            }
            None => break,
            Some(other) => panic!("nextCursor is omitted on the last page, not {other}"),
        }
        assert!(pages < 20, "runaway pagination");
    }
    assert_eq!(pages, 5);
    assert_eq!(seen, all, "every item exactly once, in order");

    // The same walk through both backends.
    for (name, b) in h.backends(&h.owner, &h.owner_key) {
        let mut got = Vec::new();
        let mut page = PageRequest {
            cursor: None,
            limit: Some(7),
        };
        loop {
            let p = b.hosts(&h.project, &page).await.expect(name);
            got.extend(p.items.into_iter().map(|i| i.id));
            match p.next_cursor {
                Some(c) => page.cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(got, all, "{name}");
    }

    // A page size that divides the list: the last full page carries no cursor, so no
    // empty page follows.
    let mut pages = 0;
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("{hosts}?limit=6&cursor={c}"),
            None => format!("{hosts}?limit=6"),
        };
        let body = h.get(&path, &h.owner_key).await.ok(200).clone();
        pages += 1;
        assert_eq!(body["items"].as_array().unwrap().len(), 6, "{body}");
        match body["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
        assert!(pages < 10, "runaway pagination");
    }
    assert_eq!(pages, 4);

    // Cursors the service never issued.
    for c in ["garbage", "eyJrZXkiOiJ4IiwiaWQiOiJ5In0", "%00"] {
        let r = h
            .get(&format!("{hosts}?limit=5&cursor={c}"), &h.owner_key)
            .await;
        r.invalid("/cursor", "cursor");
    }
}

/// A suite's cases come whole without `limit` or `cursor` (what every client of the suite
/// wants), and page in order like any other list with them.
#[tokio::test]
async fn a_suites_cases_page_in_order_when_asked() {
    let h = Harness::start().await;
    let tests: Vec<Value> = (0..7)
        .map(|i| json!({"title": format!("case {i}"), "steps": [{"id": "p1", "kind": "prompt", "prompt": format!("Say {i}")}]}))
        .collect();
    let made = h
        .call(
            Method::POST,
            &format!("/projects/{}/eval-suites", h.project),
            Some(&h.owner_key),
            Some(json!({"name": "Paged", "serverIds": ["demo"], "model": "builtin/baseline", "tests": tests})),
        )
        .await;
    let suite = made.ok(201)["suiteId"].as_str().unwrap().to_string();
    let cases = format!("/projects/{}/eval-suites/{suite}/cases", h.project);
    let titles = |v: &Value| -> Vec<String> {
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["title"].as_str().unwrap().to_string())
            .collect()
    };
    let whole = h.get(&cases, &h.owner_key).await.ok(200).clone();
    let expected: Vec<String> = (0..7).map(|i| format!("case {i}")).collect();
    assert_eq!(titles(&whole), expected);
    assert!(whole.get("nextCursor").is_none());

    let mut seen = Vec::new();
    let mut path = format!("{cases}?limit=3");
    let mut pages = 0;
    loop {
        let body = h.get(&path, &h.owner_key).await.ok(200).clone();
        pages += 1;
        seen.extend(titles(&body));
        match body["nextCursor"].as_str() {
            Some(c) => path = format!("{cases}?limit=3&cursor={c}"),
            None => break,
        }
        assert!(pages < 10, "runaway pagination");
    }
    assert_eq!((pages, seen), (3, expected));
    h.get(&format!("{cases}?limit=0"), &h.owner_key)
        .await
        .err(400, "VALIDATION_ERROR");
    h.get(&format!("{cases}?cursor=garbage"), &h.owner_key)
        .await
        .invalid("/cursor", "cursor");
}

// ---------------------------------------------------------------------------------------
// Environments, one test body over both backends

/// A host, a saved (HTTP) server and a server group in `project`: what an environment
/// needs to resolve.
async fn fixtures(b: &dyn Backend, project: &str) -> (String, String, String) {
    let host = b
        .create_host(
            project,
            &HostCreate {
                name: "Claude".into(),
                template: Some("claude".into()),
                config: None,
            },
        )
        .await
        .expect("host");
    let server = b
        .create_server(
            project,
            &ServerCreate::new(
                "weather",
                ServerConfig::new(Transport::Http {
                    url: "http://127.0.0.1:9/mcp".into(),
                    headers: Default::default(),
                }),
            ),
        )
        .await
        .expect("server");
    let group = b
        .create_server_group(
            project,
            &ServerGroupCreate {
                name: "weather only".into(),
                server_ids: vec![server.id.clone()],
            },
        )
        .await
        .expect("group");
    (host.id, server.id, group.id)
}

async fn environment_rules(b: &dyn Backend, project: &str) {
    let (host, server, group) = fixtures(b, project).await;
    let create = |name: &str| EnvironmentCreate {
        name: name.into(),
        host_id: host.clone(),
        server_attachment_id: Some(group.clone()),
        ..Default::default()
    };
    let ids = |q: EnvironmentQuery| async move {
        b.environments(project, &q)
            .await
            .expect("list")
            .items
            .into_iter()
            .map(|e| (e.id, e.archived))
            .collect::<Vec<_>>()
    };

    // Create: revision 1, live.
    let a = b.create_environment(project, &create("ci")).await.unwrap();
    assert_eq!(a.revision, 1);
    assert!(!a.archived);
    assert_eq!(a.server_attachment_id.as_deref(), Some(group.as_str()));

    // A stale expectedRevision is a 409 and changes nothing.
    let e = b
        .update_environment(
            project,
            &a.id,
            &EnvironmentPatch {
                expected_revision: 7,
                name: Some("renamed".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::Conflict, "{e}");
    let same = b.environment(project, &a.id).await.unwrap();
    assert_eq!((same.name.as_str(), same.revision), ("ci", 1));

    // Clearing the server attachment; every write bumps the revision.
    let a = b
        .update_environment(
            project,
            &a.id,
            &EnvironmentPatch {
                expected_revision: 1,
                server_attachment_id: Patch::Clear,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(a.revision, 2);
    assert_eq!(a.server_attachment_id, None);
    // Revision 1 is now stale.
    let e = b
        .update_environment(
            project,
            &a.id,
            &EnvironmentPatch {
                expected_revision: 1,
                server_attachment_id: Patch::Set(group.clone()),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::Conflict);
    let a = b
        .update_environment(
            project,
            &a.id,
            &EnvironmentPatch {
                expected_revision: 2,
                server_attachment_id: Patch::Set(group.clone()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(a.revision, 3);
    assert_eq!(a.server_attachment_id.as_deref(), Some(group.as_str()));

    // A duplicate live name is a 409.
    let e = b
        .create_environment(project, &create("ci"))
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::Conflict, "{e}");
    // Renaming onto a taken name too.
    let other = b
        .create_environment(project, &create("other"))
        .await
        .unwrap();
    let e = b
        .update_environment(
            project,
            &other.id,
            &EnvironmentPatch {
                expected_revision: 1,
                name: Some("ci".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::Conflict, "{e}");

    // Archive needs the current revision; it frees the name and hides the environment.
    let e = b.archive_environment(project, &a.id, 2).await.unwrap_err();
    assert_eq!(e.code, Code::Conflict);
    let a = b.archive_environment(project, &a.id, 3).await.unwrap();
    assert!(a.archived);
    assert!(a.archived_at.is_some());
    assert_eq!(a.revision, 4);
    let live = ids(EnvironmentQuery::default()).await;
    assert!(!live.iter().any(|(id, _)| id == &a.id), "{live:?}");
    let every = ids(EnvironmentQuery {
        include_archived: true,
        ..Default::default()
    })
    .await;
    assert!(every.contains(&(a.id.clone(), true)), "{every:?}");
    // Archived means read-only until restored.
    let e = b
        .update_environment(
            project,
            &a.id,
            &EnvironmentPatch {
                expected_revision: 4,
                name: Some("x".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::Conflict);
    let e = b.resolve_environment(project, &a.id).await.unwrap_err();
    assert_eq!(e.code, Code::Conflict);

    // The freed name can be taken again.
    let taker = b.create_environment(project, &create("ci")).await.unwrap();
    assert_eq!(taker.revision, 1);

    // Restore re-checks the name: 409 while it is taken, and nothing changes.
    let e = b.restore_environment(project, &a.id, 4).await.unwrap_err();
    assert_eq!(e.code, Code::Conflict, "{e}");
    let still = b.environment(project, &a.id).await.unwrap();
    assert!(still.archived);
    assert_eq!(still.revision, 4);
    // After renaming the taker, the restore works.
    b.update_environment(
        project,
        &taker.id,
        &EnvironmentPatch {
            expected_revision: 1,
            name: Some("ci-2".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let restored = b.restore_environment(project, &a.id, 4).await.unwrap();
    assert!(!restored.environment.archived);
    assert_eq!(restored.environment.archived_at, None);
    assert_eq!(restored.environment.name, "ci");
    assert_eq!(restored.environment.revision, 5);
    assert!(restored.dropped_plugin_version_ids.is_empty());
    let live = ids(EnvironmentQuery::default()).await;
    assert!(live.contains(&(a.id.clone(), false)));

    // Restore drops pins whose plugin version was deleted, keeping the rest in order.
    let pv = |name: &str, version: &str| PluginVersionCreate {
        name: name.into(),
        version: version.into(),
        bundle_hash: format!("sha256:{name}{version}"),
    };
    let keep = b
        .create_plugin_version(project, &pv("lint", "1.0.0"))
        .await
        .unwrap();
    let gone = b
        .create_plugin_version(project, &pv("fmt", "2.1.0"))
        .await
        .unwrap();
    let pinned = b
        .create_environment(
            project,
            &EnvironmentCreate {
                plugin_version_ids: Some(vec![gone.id.clone(), keep.id.clone()]),
                ..create("pinned")
            },
        )
        .await
        .unwrap();
    let r = b.resolve_environment(project, &pinned.id).await.unwrap();
    let pins: Vec<&str> = r
        .plugin_versions
        .iter()
        .map(|v| v.plugin_version_id.as_str())
        .collect();
    assert_eq!(pins, [gone.id.as_str(), keep.id.as_str()]);
    b.archive_environment(project, &pinned.id, 1).await.unwrap();
    b.delete_plugin_version(project, &gone.id).await.unwrap();
    let restored = b.restore_environment(project, &pinned.id, 2).await.unwrap();
    assert_eq!(restored.dropped_plugin_version_ids, vec![gone.id.clone()]);
    assert_eq!(
        restored.environment.plugin_version_ids,
        Some(vec![keep.id.clone()])
    );
    assert_eq!(restored.environment.revision, 3);

    // Resolve: the host, the closed server set and the pinned versions.
    let r = b.resolve_environment(project, &pinned.id).await.unwrap();
    assert_eq!(r.environment.id, pinned.id);
    assert_eq!(r.environment.revision, 3);
    assert_eq!(r.host_id, host);
    assert_eq!(r.host_config_id, "claude");
    assert_eq!(r.server_attachment_id.as_deref(), Some(group.as_str()));
    assert_eq!(r.selected_server_ids, vec![server.clone()]);
    assert_eq!(r.effective_server_ids, vec![server.clone()]);
    assert_eq!(r.servers.len(), 1);
    assert_eq!(r.servers[0].name, "weather");
    assert_eq!(r.plugin_versions.len(), 1);
    assert_eq!(r.plugin_versions[0].plugin_version_id, keep.id);
    assert_eq!(
        r.plugin_versions[0].plugin_id,
        keep.parent_id.clone().unwrap()
    );
    assert_eq!(r.plugin_versions[0].name, "lint");
    assert!(r.effective_model_id.is_some());

    // A live environment whose pin disappears cannot be launched: resolve is a 409.
    b.delete_plugin_version(project, &keep.id).await.unwrap();
    let e = b
        .resolve_environment(project, &pinned.id)
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::Conflict, "{e}");
    assert_eq!(
        e.details.as_ref().unwrap()["missingPluginVersionIds"],
        json!([keep.id])
    );
}

#[tokio::test]
async fn environment_rules_through_both_backends() {
    let h = Harness::start().await;
    for (name, b) in h.backends(&h.owner, &h.owner_key) {
        let project = h.new_project(&format!("envs via {name}"));
        environment_rules(b.as_ref(), &project).await;
    }
}

#[tokio::test]
async fn environment_rules_for_a_project_admin_member() {
    // Not only owners: a plain org member who is project admin gets the same behaviour.
    let h = Harness::start().await;
    for name in ["embedded", "remote"] {
        let project = h.new_project(&format!("admin via {name}"));
        let (who, key) = h.member("member", Some((&project, ProjectRole::Admin)));
        let b: Box<dyn Backend> = if name == "embedded" {
            Box::new(h.embedded(&who))
        } else {
            Box::new(h.remote(&key))
        };
        environment_rules(b.as_ref(), &project).await;
    }
}

#[tokio::test]
async fn null_clears_environment_fields_over_http() {
    let h = Harness::start().await;
    let (project, k) = (h.project.clone(), h.owner_key.clone());
    let remote = h.remote(&k);
    let (host, _, group) = fixtures(&remote, &project).await;
    let skill = h
        .call(
            Method::POST,
            &format!("/projects/{project}/skills"),
            Some(&k),
            Some(json!({"name": "triage"})),
        )
        .await
        .ok(201)["id"]
        .clone();
    let pv = h
        .call(
            Method::POST,
            &format!("/projects/{project}/plugins"),
            Some(&k),
            Some(json!({"name": "lint", "version": "1", "bundleHash": "sha256:00"})),
        )
        .await
        .ok(201)["id"]
        .clone();
    let env = h
        .call(
            Method::POST,
            &format!("/projects/{project}/environments"),
            Some(&k),
            Some(json!({
                "name": "full",
                "hostId": host,
                "serverAttachmentId": group,
                "modelId": "openai/gpt-5",
                "skillSelection": {"mode": "explicit", "skillIds": [skill]},
                "pluginVersionIds": [pv],
            })),
        )
        .await;
    let env = env.ok(201).clone();
    assert_eq!(env["revision"], 1);
    assert_eq!(env["serverAttachmentId"], json!(group));
    let path = format!(
        "/projects/{project}/environments/{}",
        env["id"].as_str().unwrap()
    );

    // Absent keeps, null clears.
    let r = h
        .call(
            Method::PATCH,
            &path,
            Some(&k),
            Some(json!({"expectedRevision": 1, "serverAttachmentId": null})),
        )
        .await;
    let body = r.ok(200);
    assert_eq!(body["revision"], 2);
    assert!(
        body.get("serverAttachmentId").is_none(),
        "omitted, not null: {body}"
    );
    assert_eq!(body["modelId"], "openai/gpt-5");
    assert_eq!(body["pluginVersionIds"], json!([pv]));
    let r = h
        .call(
            Method::PATCH,
            &path,
            Some(&k),
            Some(json!({"expectedRevision": 2, "skillSelection": null, "pluginVersionIds": null})),
        )
        .await;
    let body = r.ok(200);
    assert_eq!(body["revision"], 3);
    for f in ["serverAttachmentId", "skillSelection", "pluginVersionIds"] {
        assert!(body.get(f).is_none(), "{f} cleared: {body}");
    }
    assert_eq!(body["hostId"], json!(host));
    // The stored state agrees.
    let body = h.get(&path, &k).await.ok(200).clone();
    assert_eq!(body["revision"], 3);
    assert!(body.get("serverAttachmentId").is_none());
    // Archive and restore take {expectedRevision} too, and reject a stale one.
    h.call(
        Method::POST,
        &format!("{path}/archive"),
        Some(&k),
        Some(json!({"expectedRevision": 2})),
    )
    .await
    .err(409, "CONFLICT");
    h.call(
        Method::POST,
        &format!("{path}/archive"),
        Some(&k),
        Some(json!({})),
    )
    .await
    .invalid("/expectedRevision", "required");
    let r = h
        .call(
            Method::POST,
            &format!("{path}/archive"),
            Some(&k),
            Some(json!({"expectedRevision": 3})),
        )
        .await;
    assert_eq!(r.ok(200)["archived"], true);
    let r = h
        .call(
            Method::POST,
            &format!("{path}/restore"),
            Some(&k),
            Some(json!({"expectedRevision": 4})),
        )
        .await;
    let body = r.ok(200);
    assert_eq!(body["archived"], false);
    assert_eq!(body["droppedPluginVersionIds"], json!([]));
}

// ---------------------------------------------------------------------------------------
// Hosts, one test body over both backends

async fn host_rules(b: &dyn Backend, project: &str) {
    let cursor = b
        .create_host(
            project,
            &HostCreate {
                name: "Cursor".into(),
                template: Some("cursor".into()),
                config: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(cursor.config["hostConfigId"], "cursor");
    assert!(
        cursor.config["modelId"]
            .as_str()
            .is_some_and(|m| !m.is_empty())
    );
    let read = b.host(project, &cursor.id).await.unwrap();
    assert_eq!(read, cursor);

    // A full config without hostConfigId is recorded as custom.
    let mut config = serde_json::Map::new();
    config.insert("modelId".into(), json!("mistral/mistral-large"));
    let custom = b
        .create_host(
            project,
            &HostCreate {
                name: "Custom".into(),
                template: None,
                config: Some(config),
            },
        )
        .await
        .unwrap();
    assert_eq!(custom.config["hostConfigId"], "custom");

    // Validation is the same error through either backend.
    let e = b
        .create_host(
            project,
            &HostCreate {
                name: "x".into(),
                template: Some("netscape".into()),
                config: None,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::ValidationError);
    assert_eq!(e.violations()[0].path, "/template");
    assert_eq!(e.violations()[0].rule, "enum");

    // Rename keeps the config.
    let renamed = b
        .update_host(
            project,
            &cursor.id,
            &HostPatch {
                name: Some("Cursor (team)".into()),
                config: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(renamed.name, "Cursor (team)");
    assert_eq!(renamed.config, cursor.config);
    let e = b
        .update_host(project, &cursor.id, &HostPatch::default())
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::ValidationError);

    // The list shows the summary shape.
    let list = b.hosts(project, &PageRequest::default()).await.unwrap();
    let summary = list
        .items
        .iter()
        .find(|s| s.id == cursor.id)
        .expect("listed");
    assert_eq!(summary.name, "Cursor (team)");
    assert_eq!(summary.host_config_id, "cursor");

    // A host an environment uses cannot be deleted; an unused one can.
    let env = b
        .create_environment(
            project,
            &EnvironmentCreate {
                name: "on cursor".into(),
                host_id: cursor.id.clone(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let e = b.delete_host(project, &cursor.id).await.unwrap_err();
    assert_eq!(e.code, Code::Conflict, "{e}");
    b.host(project, &cursor.id).await.expect("still there");
    let d = b.delete_host(project, &custom.id).await.unwrap();
    assert_eq!((d.id.as_str(), d.deleted), (custom.id.as_str(), true));
    let e = b.host(project, &custom.id).await.unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    let e = b.delete_host(project, &custom.id).await.unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    // Moving the environment off the host frees it.
    let seeded = list
        .items
        .iter()
        .find(|s| s.id != cursor.id && s.id != custom.id);
    if let Some(other) = seeded {
        b.update_environment(
            project,
            &env.id,
            &EnvironmentPatch {
                expected_revision: 1,
                host_id: Some(other.id.clone()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        b.delete_host(project, &cursor.id).await.unwrap();
    }
}

#[tokio::test]
async fn host_rules_through_both_backends() {
    let h = Harness::start().await;
    for (name, b) in h.backends(&h.owner, &h.owner_key) {
        let project = h.new_project(&format!("hosts via {name}"));
        // A second host so the environment can move off the first.
        b.create_host(
            &project,
            &HostCreate {
                name: "Codex".into(),
                template: Some("codex".into()),
                config: None,
            },
        )
        .await
        .unwrap();
        host_rules(b.as_ref(), &project).await;
    }
}

#[tokio::test]
async fn host_wire_shapes_over_http() {
    let h = Harness::start().await;
    let path = format!("/projects/{}/hosts", h.project);
    let r = h
        .call(
            Method::POST,
            &path,
            Some(&h.owner_key),
            Some(json!({"name": "Cursor", "template": "cursor"})),
        )
        .await;
    let host = r.ok(201).clone();
    assert_eq!(host["config"]["hostConfigId"], "cursor");
    let id = host["id"].as_str().unwrap();
    let list = h.get(&path, &h.owner_key).await.ok(200).clone();
    let item = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == id)
        .unwrap()
        .clone();
    for f in [
        "id",
        "name",
        "hostConfigId",
        "modelId",
        "serverCount",
        "createdAt",
        "updatedAt",
    ] {
        assert!(item.get(f).is_some(), "{f} in {item}");
    }
    let r = h
        .call(
            Method::PATCH,
            &format!("{path}/{id}"),
            Some(&h.owner_key),
            Some(json!({"name": "Renamed"})),
        )
        .await;
    assert_eq!(r.ok(200)["name"], "Renamed");
    let r = h
        .call(
            Method::DELETE,
            &format!("{path}/{id}"),
            Some(&h.owner_key),
            None,
        )
        .await;
    assert_eq!(r.ok(200), &json!({"id": id, "deleted": true}));
    // The seeded host is used by the seeded environment.
    let seeded = list["items"][0]["id"].as_str().unwrap();
    h.call(
        Method::DELETE,
        &format!("{path}/{seeded}"),
        Some(&h.owner_key),
        None,
    )
    .await
    .err(409, "CONFLICT");
}

#[tokio::test]
async fn hosts_of_another_project_are_not_found() {
    // A project admin of one project names a host of another project (which an
    // environment there uses): the answer is 404, not a 409 listing that project's
    // environments.
    let h = Harness::start().await;
    let mine = h.new_project("mine");
    let (_, key) = h.member("member", Some((&mine, ProjectRole::Admin)));
    let theirs = h
        .get(&format!("/projects/{}/hosts", h.project), &h.owner_key)
        .await
        .ok(200)["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("/projects/{mine}/hosts/{theirs}");
    h.get(&path, &key).await.err(404, "NOT_FOUND");
    h.call(
        Method::PATCH,
        &path,
        Some(&key),
        Some(json!({"name": "hijacked"})),
    )
    .await
    .err(404, "NOT_FOUND");
    let r = h.call(Method::DELETE, &path, Some(&key), None).await;
    r.err(404, "NOT_FOUND");
    assert!(
        !r.text.contains("local"),
        "leaks another project's environments: {}",
        r.text
    );
}

#[tokio::test]
async fn server_group_members_must_be_unique_servers_of_the_project() {
    let h = Harness::start().await;
    let k = Some(h.owner_key.as_str());
    let p = &h.project;
    let servers = h.get(&format!("/projects/{p}/servers"), &h.owner_key).await;
    let demo = servers.ok(200)["items"][0]["id"].clone();
    let groups = format!("/projects/{p}/server-groups");
    h.call(
        Method::POST,
        &groups,
        k,
        Some(json!({"name": "twice", "serverIds": [demo, demo]})),
    )
    .await
    .invalid("/serverIds/1", "uniqueItems");
    h.call(
        Method::POST,
        &groups,
        k,
        Some(json!({"name": "ghost", "serverIds": [demo, "srv_nope"]})),
    )
    .await
    .invalid("/serverIds/1", "exists");
    h.call(
        Method::POST,
        &groups,
        k,
        Some(json!({"name": "once", "serverIds": [demo]})),
    )
    .await
    .ok(201);
    h.call(
        Method::POST,
        &groups,
        k,
        Some(json!({"name": "once", "serverIds": [demo]})),
    )
    .await
    .err(409, "CONFLICT");
}

// ---------------------------------------------------------------------------------------
// Catalog

#[tokio::test]
async fn me_projects_and_chat_sessions() {
    let h = Harness::start().await;
    let me = h.get("/me", &h.owner_key).await.ok(200).clone();
    assert_eq!(me["id"], json!(h.owner.user_id));
    assert!(me["email"].is_string() && me["name"].is_string());
    assert_eq!(me["organization"]["id"], json!(h.owner.org_id));
    assert!(me["organization"]["credits"].is_i64(), "{me}");
    assert_eq!(me["organization"]["role"], "owner");

    let (other, other_key, other_project) = h.other_org();
    let r = h
        .get(
            &format!("/projects?organizationId={}", other.org_id),
            &h.owner_key,
        )
        .await;
    r.err(403, "FORBIDDEN");
    let own = h
        .get(
            &format!("/projects?organizationId={}", h.owner.org_id),
            &h.owner_key,
        )
        .await;
    let ids: Vec<&str> = own.ok(200)["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [h.project.as_str()]);
    // The other organization sees its own credits and projects only.
    let me = h.get("/me", &other_key).await.ok(200).clone();
    assert_eq!(me["organization"]["credits"], 50);
    let theirs = h.get("/projects", &other_key).await;
    assert_eq!(theirs.ok(200)["items"][0]["id"], json!(other_project));
    assert_eq!(theirs.body["items"].as_array().unwrap().len(), 1);

    h.get("/chat-sessions?status=bogus", &h.owner_key)
        .await
        .invalid("/status", "enum");
    h.get(
        &format!("/chat-sessions?projectId={other_project}"),
        &h.owner_key,
    )
    .await
    .err(403, "FORBIDDEN");
    h.get(
        &format!("/chat-sessions?projectId={}&status=active", h.project),
        &h.owner_key,
    )
    .await
    .ok(200);

    for (name, b) in h.backends(&h.owner, &h.owner_key) {
        let me = b.me().await.expect(name);
        let org = me.organization.expect("organization");
        assert_eq!(org.credits, 1000, "{name}");
        assert_eq!(org.default_project_id.as_deref(), Some(h.project.as_str()));
        let e = b
            .projects(
                &ProjectQuery {
                    organization_id: Some(other.org_id.clone()),
                },
                &PageRequest::default(),
            )
            .await
            .expect_err(name);
        assert_eq!(e.code, Code::Forbidden, "{name}");
        let e = b
            .chat_sessions(&ChatSessionQuery {
                status: Some("bogus".into()),
                ..Default::default()
            })
            .await
            .expect_err(name);
        assert_eq!(e.code, Code::ValidationError, "{name}");
        assert_eq!(e.violations()[0].path, "/status");
        let suites = b
            .eval_suites(&h.project, &PageRequest::default())
            .await
            .expect(name);
        assert_eq!(suites.items.len(), 1, "{name}: the seeded suite");
    }
}

// ---------------------------------------------------------------------------------------
// OpenAPI

#[tokio::test]
async fn openapi_document_lists_every_served_path() {
    let h = Harness::start().await;
    let r = h.call(Method::GET, "/openapi.json", None, None).await;
    let doc = r.ok(200).clone();
    assert!(
        doc["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.1")),
        "{}",
        doc["openapi"]
    );
    let paths = doc["paths"].as_object().expect("paths");
    for p in [
        "/me",
        "/projects",
        "/chat-sessions",
        "/projects/{project_id}/eval-suites",
        "/projects/{project_id}/hosts",
        "/projects/{project_id}/hosts/{host_id}",
        "/projects/{project_id}/environments",
        "/projects/{project_id}/environments/{environment_id}",
        "/projects/{project_id}/environments/{environment_id}/resolve",
        "/projects/{project_id}/environments/{environment_id}/archive",
        "/projects/{project_id}/environments/{environment_id}/restore",
        "/projects/{project_id}/chatboxes",
        "/api-keys",
    ] {
        assert!(paths.contains_key(p), "{p} is documented");
    }
    assert!(doc["components"]["schemas"]["Error"].is_object());

    // Query parameters come from the handlers' query types.
    let query = |path: &str, method: &str| -> Vec<String> {
        doc["paths"][path][method]["parameters"]
            .as_array()
            .unwrap_or_else(|| panic!("{method} {path} has parameters"))
            .iter()
            .filter(|p| p["in"] == "query")
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    let has = |path: &str, method: &str, names: &[&str]| {
        let got = query(path, method);
        for n in names {
            assert!(
                got.iter().any(|g| g == n),
                "{method} {path}: {n} in {got:?}"
            );
        }
    };
    has(
        "/projects/{project_id}/environments",
        "get",
        &["includeArchived", "cursor", "limit"],
    );
    has("/projects", "get", &["organizationId", "cursor", "limit"]);
    has(
        "/chat-sessions",
        "get",
        &["projectId", "status", "limit", "before", "cursor"],
    );
    has("/projects/{project_id}/hosts", "get", &["cursor", "limit"]);
    has(
        "/projects/{project_id}/eval-suites",
        "get",
        &["cursor", "limit"],
    );
    assert_eq!(query("/me", "get"), Vec::<String>::new());
    assert_eq!(
        query("/projects/{project_id}/hosts", "post"),
        Vec::<String>::new(),
        "a POST list reads its cursor from the body"
    );
    let limit = doc["paths"]["/chat-sessions"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "limit")
        .unwrap();
    assert_eq!(limit["required"], false);
    assert_eq!(limit["schema"]["type"], "integer", "never null: {limit}");
    let archived = doc["paths"]["/projects/{project_id}/environments"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "includeArchived")
        .unwrap();
    assert_eq!(archived["schema"]["type"], "boolean", "{archived}");

    // 429 with its Retry-After header on keyed operations; not on the upload URL.
    let retry = &doc["paths"]["/me"]["get"]["responses"]["429"];
    assert_eq!(
        retry["headers"]["Retry-After"]["schema"]["type"], "integer",
        "{retry}"
    );
    assert!(
        doc["paths"]["/eval-ingest/uploads/{token}"]["post"]["responses"]["429"].is_null(),
        "upload URLs are not rate limited per key"
    );

    // The import documents both its 200 and its 202.
    let import = &doc["paths"]["/projects/{project_id}/eval-suites/{suite_id}/cases/import"]["post"]
        ["responses"];
    assert!(
        import["200"].is_object() && import["202"].is_object(),
        "{import}"
    );

    // Key management documents its refusal, not a success.
    for path in ["/api-keys", "/api-keys/{key_id}"] {
        for m in ["get", "post", "put", "patch", "delete"] {
            let responses = doc["paths"][path][m]["responses"]
                .as_object()
                .unwrap_or_else(|| panic!("{m} {path} is documented"));
            assert!(responses.contains_key("403"), "{m} {path}");
            assert!(
                !responses.keys().any(|k| k.starts_with('2')),
                "{m} {path} documents no success: {responses:?}"
            );
        }
    }

    // Every documented operation is routed: with placeholder ids it reaches a handler
    // (which answers 2xx, 400, 403 or 404 for the unknown project), never the fallback.
    for (path, ops) in paths {
        let concrete = path
            .split('/')
            .map(|seg| {
                if seg.starts_with('{') {
                    "zz_placeholder"
                } else {
                    seg
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        for method in ops.as_object().unwrap().keys() {
            let m = Method::from_bytes(method.to_ascii_uppercase().as_bytes()).unwrap();
            let body = (m != Method::GET && m != Method::DELETE).then(|| json!({}));
            let r = h.call(m.clone(), &concrete, Some(&h.owner_key), body).await;
            let msg = r.body["message"].as_str().unwrap_or_default();
            assert!(
                !msg.starts_with("no route for") && !msg.contains("does not answer"),
                "{method} {path} is documented but not routed: {}",
                r.text
            );
            assert!(r.status.as_u16() < 500, "{method} {path}: {}", r.text);
        }
    }
}

// ---------------------------------------------------------------------------------------
// `null` on fields a PATCH cannot clear

#[tokio::test]
async fn null_on_a_field_that_cannot_be_cleared_is_a_type_error() {
    let h = Harness::start().await;
    let p = &h.project;
    let k = Some(h.owner_key.as_str());
    let env = h
        .get(&format!("/projects/{p}/environments"), &h.owner_key)
        .await;
    let env = env.ok(200)["items"][0].clone();
    let env_path = format!("/projects/{p}/environments/{}", env["id"].as_str().unwrap());
    let rev = env["revision"].clone();
    let host_id = env["hostId"].as_str().unwrap().to_string();
    let host_path = format!("/projects/{p}/hosts/{host_id}");
    // (path, body, the field named)
    let rows = [
        (
            &env_path,
            json!({"expectedRevision": rev, "name": null}),
            "/name",
        ),
        (
            &env_path,
            json!({"expectedRevision": rev, "hostId": null}),
            "/hostId",
        ),
        (
            &env_path,
            json!({"expectedRevision": rev, "name": "fine", "hostId": null}),
            "/hostId",
        ),
        (
            &env_path,
            json!({"expectedRevision": null, "name": "x"}),
            "/expectedRevision",
        ),
        (&host_path, json!({"name": null}), "/name"),
        (&host_path, json!({"config": null}), "/config"),
        (
            &host_path,
            json!({"name": "fine", "config": null}),
            "/config",
        ),
    ];
    for (path, body, field) in &rows {
        let r = h.call(Method::PATCH, path, k, Some(body.clone())).await;
        r.invalid(field, "type");
        assert!(
            !r.violations()
                .iter()
                .any(|(_, rule)| rule == "minProperties"),
            "{body}: {}",
            r.text
        );
    }
    // Nothing changed.
    let after = h.get(&env_path, &h.owner_key).await.ok(200).clone();
    assert_eq!(after["revision"], rev);
    assert_eq!(after["name"], env["name"]);
    // `null` still clears what may be absent.
    let r = h
        .call(
            Method::PATCH,
            &env_path,
            k,
            Some(json!({"expectedRevision": rev, "serverAttachmentId": null, "description": null})),
        )
        .await;
    let body = r.ok(200);
    assert!(body.get("serverAttachmentId").is_none(), "{body}");
}

// ---------------------------------------------------------------------------------------
// Access before the body

#[tokio::test]
async fn access_is_checked_before_the_body() {
    let h = Harness::start().await;
    let p = h.project.clone();
    let (outsider, outsider_key) = h.member("member", None);
    let (reader, reader_key) = h.member("member", Some((&p, ProjectRole::Member)));
    let (_, other_org_key, _) = h.other_org();
    let env = h
        .get(&format!("/projects/{p}/environments"), &h.owner_key)
        .await;
    let env_id = env.ok(200)["items"][0]["id"].as_str().unwrap().to_string();
    let host = h.get(&format!("/projects/{p}/hosts"), &h.owner_key).await;
    let host_id = host.ok(200)["items"][0]["id"].as_str().unwrap().to_string();
    let writes = [
        (Method::POST, format!("/projects/{p}/hosts")),
        (Method::PATCH, format!("/projects/{p}/hosts/{host_id}")),
        (Method::POST, format!("/projects/{p}/environments")),
        (
            Method::PATCH,
            format!("/projects/{p}/environments/{env_id}"),
        ),
        (
            Method::POST,
            format!("/projects/{p}/environments/{env_id}/archive"),
        ),
        (
            Method::POST,
            format!("/projects/{p}/environments/{env_id}/restore"),
        ),
        (Method::POST, format!("/projects/{p}/server-groups")),
        (Method::POST, format!("/projects/{p}/plugins")),
        (Method::POST, format!("/projects/{p}/skills")),
    ];
    // Bodies that break a rule, have the wrong types, or are not JSON at all.
    let bad: [(&str, &[u8]); 4] = [
        ("application/json", br#"{}"#),
        (
            "application/json",
            br#"{"name": "", "template": "netscape", "expectedRevision": 0}"#,
        ),
        (
            "application/json",
            br#"{"name": 5, "expectedRevision": "one"}"#,
        ),
        ("text/plain", b"not json"),
    ];
    for key in [&outsider_key, &reader_key, &other_org_key] {
        for (m, path) in &writes {
            for (ct, body) in bad {
                let r = h
                    .raw(m.clone(), path, Some(key), Some(ct), body.to_vec())
                    .await;
                assert_eq!(r.status.as_u16(), 403, "{m} {path} {body:?}: {}", r.text);
                r.err(403, "FORBIDDEN");
            }
        }
    }
    // A project that does not exist is 404, whatever the body.
    h.raw(
        Method::POST,
        "/projects/prj_nope/hosts",
        Some(&h.owner_key),
        Some("application/json"),
        b"{}".to_vec(),
    )
    .await
    .err(404, "NOT_FOUND");
    // An admin still gets the body's 400.
    h.call(
        Method::POST,
        &format!("/projects/{p}/hosts"),
        Some(&h.owner_key),
        Some(json!({"name": 5})),
    )
    .await
    .invalid("/name", "type");

    // The same order in-process: an invalid body from a non-admin is 403.
    for (who, key) in [(&outsider, &outsider_key), (&reader, &reader_key)] {
        for (name, b) in h.backends(who, key) {
            let e = b
                .create_host(&p, &HostCreate::default())
                .await
                .expect_err(name);
            assert_eq!(e.code, Code::Forbidden, "{name}: {e}");
            let e = b
                .update_environment(&p, &env_id, &EnvironmentPatch::default())
                .await
                .expect_err(name);
            assert_eq!(e.code, Code::Forbidden, "{name}: {e}");
            let e = b
                .create_plugin_version(
                    &p,
                    &PluginVersionCreate {
                        name: String::new(),
                        version: String::new(),
                        bundle_hash: String::new(),
                    },
                )
                .await
                .expect_err(name);
            assert_eq!(e.code, Code::Forbidden, "{name}: {e}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Host names are unique per project

async fn host_names_are_unique(b: &dyn Backend, project: &str, other_project: &str) {
    let create = |name: &str| HostCreate {
        name: name.into(),
        template: Some("cursor".into()),
        config: None,
    };
    let first = b.create_host(project, &create("ci")).await.unwrap();
    let e = b.create_host(project, &create("ci")).await.unwrap_err();
    assert_eq!(e.code, Code::Conflict, "{e}");
    assert_eq!(e.details.as_ref().unwrap()["field"], "name");
    // Names are compared exactly: another spelling is another name.
    let second = b.create_host(project, &create("CI")).await.unwrap();
    // Renaming onto a taken name is a conflict too, and changes nothing.
    let e = b
        .update_host(
            project,
            &second.id,
            &HostPatch {
                name: Some("ci".into()),
                config: None,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::Conflict, "{e}");
    assert_eq!(b.host(project, &second.id).await.unwrap().name, "CI");
    // Keeping one's own name is no conflict.
    b.update_host(
        project,
        &first.id,
        &HostPatch {
            name: Some("ci".into()),
            config: None,
        },
    )
    .await
    .unwrap();
    // Another project may use the name; a deleted host frees it.
    b.create_host(other_project, &create("ci")).await.unwrap();
    b.delete_host(project, &first.id).await.unwrap();
    b.create_host(project, &create("ci")).await.unwrap();
}

#[tokio::test]
async fn host_names_are_unique_per_project_through_both_backends() {
    let h = Harness::start().await;
    for (name, b) in h.backends(&h.owner, &h.owner_key) {
        let project = h.new_project(&format!("unique hosts via {name}"));
        let other = h.new_project(&format!("other hosts via {name}"));
        host_names_are_unique(b.as_ref(), &project, &other).await;
    }
    // Over HTTP: the spec's error body.
    let path = format!("/projects/{}/hosts", h.project);
    let k = Some(h.owner_key.as_str());
    let body = json!({"name": "twice", "template": "claude"});
    h.call(Method::POST, &path, k, Some(body.clone()))
        .await
        .ok(201);
    let r = h.call(Method::POST, &path, k, Some(body)).await;
    r.err(409, "CONFLICT");
    assert_eq!(r.body["details"]["field"], "name");
}

#[tokio::test]
async fn plugin_versions_of_one_name_share_one_plugin() {
    let h = Harness::start().await;
    for (name, b) in h.backends(&h.owner, &h.owner_key) {
        let project = h.new_project(&format!("plugins via {name}"));
        let pv = |version: &str| PluginVersionCreate {
            name: "lint".into(),
            version: version.into(),
            bundle_hash: format!("sha256:{version}"),
        };
        let a = b
            .create_plugin_version(&project, &pv("1.0.0"))
            .await
            .unwrap();
        let c = b
            .create_plugin_version(&project, &pv("1.1.0"))
            .await
            .unwrap();
        assert_ne!(a.id, c.id, "{name}");
        assert!(a.parent_id.is_some(), "{name}");
        assert_eq!(a.parent_id, c.parent_id, "{name}: one plugin, two versions");
    }
}

// ---------------------------------------------------------------------------------------
// Chat sessions: pagination, `before`, cursors

#[tokio::test]
async fn chat_sessions_paginate_newest_first_and_honour_before() {
    let h = Harness::start().await;
    let project = h.new_project("chats");
    let store = h.service.store();
    // Activity times with a tie (two at 5000) so the id breaks it.
    let times = [1000, 2000, 3000, 4000, 5000, 5000, 6000, 7000];
    let mut created = Vec::new();
    for (i, at) in times.iter().enumerate() {
        let id = store
            .create_chat_session(&project, Some(&h.owner.user_id), &format!("chat {i}"), *at)
            .unwrap();
        created.push((*at, id));
    }
    // Newest activity first; ties by id, descending.
    let mut expected = created.clone();
    expected.sort_by(|a, b| b.cmp(a));
    let expected: Vec<String> = expected.into_iter().map(|(_, id)| id).collect();

    for (name, b) in h.backends(&h.owner, &h.owner_key) {
        let mut q = ChatSessionQuery {
            project_id: Some(project.clone()),
            limit: Some(3),
            ..Default::default()
        };
        let mut got = Vec::new();
        let mut pages = 0;
        loop {
            let page = b.chat_sessions(&q).await.expect(name);
            pages += 1;
            assert!(page.items.len() <= 3, "{name}");
            for s in &page.items {
                assert_eq!(s.project_id.as_deref(), Some(project.as_str()), "{name}");
            }
            got.extend(page.items.into_iter().map(|s| s.id));
            match page.next_cursor {
                Some(c) => q.cursor = Some(c),
                None => break,
            }
            assert!(pages < 10, "{name}: runaway pagination");
        }
        assert_eq!(pages, 3, "{name}");
        assert_eq!(got, expected, "{name}: every session once, newest first");

        // `before` is an exclusive bound on lastActivityAt, and pages within it.
        let mut q = ChatSessionQuery {
            project_id: Some(project.clone()),
            before: Some(5000),
            limit: Some(2),
            ..Default::default()
        };
        let mut got = Vec::new();
        loop {
            let page = b.chat_sessions(&q).await.expect(name);
            for s in &page.items {
                assert!(s.last_activity_at.unwrap() < 5000, "{name}: {s:?}");
            }
            got.extend(page.items.into_iter().map(|s| s.id));
            match page.next_cursor {
                Some(c) => q.cursor = Some(c),
                None => break,
            }
        }
        let older: Vec<String> = expected[4..].to_vec();
        assert_eq!(got, older, "{name}");

        // Cursors the service never issued are refused, not read as "from the top".
        for bad in ["garbage", "eyJrZXkiOiJ4IiwiaWQiOiJ5In0"] {
            let e = b
                .chat_sessions(&ChatSessionQuery {
                    project_id: Some(project.clone()),
                    cursor: Some(bad.into()),
                    ..Default::default()
                })
                .await
                .expect_err(name);
            assert_eq!(e.code, Code::ValidationError, "{name}: {bad}");
            assert_eq!(e.violations()[0].path, "/cursor", "{name}");
        }
        let e = b
            .chat_sessions(&ChatSessionQuery {
                limit: Some(0),
                ..Default::default()
            })
            .await
            .expect_err(name);
        assert_eq!(e.violations()[0].path, "/limit", "{name}");
    }

    // Over HTTP, the wire shape and the query parameters by name.
    let r = h
        .get(
            &format!("/chat-sessions?projectId={project}&before=7000&limit=1"),
            &h.owner_key,
        )
        .await;
    let body = r.ok(200).clone();
    let item = &body["items"][0];
    assert_eq!(item["id"], json!(expected[1]));
    for f in [
        "id",
        "title",
        "status",
        "projectId",
        "lastActivityAt",
        "createdAt",
    ] {
        assert!(item.get(f).is_some(), "{f} in {item}");
    }
    assert!(body["nextCursor"].is_string());
    h.get(
        &format!("/chat-sessions?projectId={project}&cursor=eyJrZXkiOiJ4IiwiaWQiOiJ5In0"),
        &h.owner_key,
    )
    .await
    .invalid("/cursor", "cursor");
    h.get("/chat-sessions?before=yesterday", &h.owner_key)
        .await
        .invalid("/before", "query");
}

// ---------------------------------------------------------------------------------------
// Chatboxes (read-only)

#[tokio::test]
async fn chatbox_reads_list_and_detail_through_both_backends() {
    use evaldeck::service::store::chat::NewChatbox;
    let h = Harness::start().await;
    let p = h.project.clone();
    let store = h.service.store();
    let hosts = h.get(&format!("/projects/{p}/hosts"), &h.owner_key).await;
    let host = hosts.ok(200)["items"][0].clone();
    let servers = h.get(&format!("/projects/{p}/servers"), &h.owner_key).await;
    let demo = servers.ok(200)["items"][0].clone();
    let shared = store
        .create_chatbox(
            &p,
            &NewChatbox {
                name: "Support bot".into(),
                description: Some("Answers with the demo tools".into()),
                mode: "anyone_with_link".into(),
                host_id: host["id"].as_str().map(str::to_string),
                model_id: Some("builtin/baseline".into()),
                system_prompt: Some("Be brief.".into()),
                temperature: Some(0.25),
                require_tool_approval: true,
                // A server deleted since is left out, not an error.
                server_ids: vec![demo["id"].as_str().unwrap().into(), "srv_gone".into()],
            },
        )
        .unwrap();
    let private = store
        .create_chatbox(
            &p,
            &NewChatbox {
                name: "Team only".into(),
                mode: "project_members".into(),
                ..Default::default()
            },
        )
        .unwrap();
    let elsewhere = h.new_project("elsewhere");
    let foreign = store
        .create_chatbox(
            &elsewhere,
            &NewChatbox {
                name: "Not here".into(),
                mode: "invited_only".into(),
                ..Default::default()
            },
        )
        .unwrap();

    // The wire shapes (wire-shapes.md), optional fields omitted rather than null.
    let list = h
        .get(&format!("/projects/{p}/chatboxes"), &h.owner_key)
        .await
        .ok(200)
        .clone();
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{list}");
    assert!(list.get("nextCursor").is_none());
    let a = &items[0];
    assert_eq!(a["id"], json!(shared));
    assert_eq!(a["name"], "Support bot");
    assert_eq!(a["description"], "Answers with the demo tools");
    assert_eq!(a["mode"], "anyone_with_link");
    assert_eq!(a["hostId"], host["id"]);
    assert_eq!(a["hostName"], host["name"]);
    assert_eq!(a["serverCount"], 1);
    assert_eq!(a["serverNames"], json!([demo["name"]]));
    assert_eq!(
        a["link"]["path"],
        json!(format!("/projects/{p}/chatboxes/{shared}"))
    );
    assert!(a["link"]["url"].is_string());
    let b = &items[1];
    assert_eq!(b["id"], json!(private));
    assert_eq!(b["mode"], "project_members");
    assert_eq!(b["serverCount"], 0);
    assert_eq!(b["serverNames"], json!([]));
    for absent in ["description", "hostId", "hostName", "link"] {
        assert!(b.get(absent).is_none(), "{absent} omitted in {b}");
    }

    let detail = h
        .get(&format!("/projects/{p}/chatboxes/{shared}"), &h.owner_key)
        .await
        .ok(200)
        .clone();
    assert_eq!(detail["id"], json!(shared));
    assert_eq!(detail["serverCount"], 1);
    assert_eq!(detail["modelId"], "builtin/baseline");
    assert_eq!(detail["systemPrompt"], "Be brief.");
    assert_eq!(detail["temperature"], 0.25);
    assert_eq!(detail["requireToolApproval"], true);
    let servers = detail["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 1);
    assert_eq!(servers[0]["id"], demo["id"]);
    assert_eq!(servers[0]["name"], demo["name"]);
    assert_eq!(servers[0]["useOAuth"], false);
    let detail = h
        .get(&format!("/projects/{p}/chatboxes/{private}"), &h.owner_key)
        .await
        .ok(200)
        .clone();
    assert_eq!(detail["requireToolApproval"], false);
    assert_eq!(detail["servers"], json!([]));
    for absent in ["modelId", "systemPrompt", "temperature"] {
        assert!(detail.get(absent).is_none(), "{absent} omitted in {detail}");
    }
    // Unknown, or of another project: 404.
    for id in ["cbx_nope", foreign.as_str()] {
        h.get(&format!("/projects/{p}/chatboxes/{id}"), &h.owner_key)
            .await
            .err(404, "NOT_FOUND");
    }
    // A paged walk.
    let first = h
        .get(&format!("/projects/{p}/chatboxes?limit=1"), &h.owner_key)
        .await
        .ok(200)
        .clone();
    assert_eq!(first["items"][0]["id"], json!(shared));
    let c = first["nextCursor"].as_str().unwrap();
    let second = h
        .get(
            &format!("/projects/{p}/chatboxes?limit=1&cursor={c}"),
            &h.owner_key,
        )
        .await
        .ok(200)
        .clone();
    assert_eq!(second["items"][0]["id"], json!(private));
    assert!(second.get("nextCursor").is_none());

    // The same through both backends, and the same answer from each.
    let mut seen = Vec::new();
    for (name, b) in h.backends(&h.owner, &h.owner_key) {
        let list = b.chatboxes(&p, &PageRequest::default()).await.expect(name);
        let ids: Vec<&str> = list.items.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, [shared.as_str(), private.as_str()], "{name}");
        let d = b.chatbox(&p, &shared).await.expect(name);
        assert_eq!(
            d.chatbox, list.items[0],
            "{name}: detail carries the list item"
        );
        assert_eq!(d.temperature, Some(0.25));
        assert!(d.require_tool_approval);
        let e = b.chatbox(&p, &foreign).await.expect_err(name);
        assert_eq!(e.code, Code::NotFound, "{name}");
        seen.push((list, d));
    }
    assert_eq!(seen[0], seen[1], "embedded and remote agree");
    // Reads need membership.
    let (who, key) = h.member("member", None);
    for (name, b) in h.backends(&who, &key) {
        let e = b
            .chatboxes(&p, &PageRequest::default())
            .await
            .expect_err(name);
        assert_eq!(e.code, Code::Forbidden, "{name}");
    }
}

// ---------------------------------------------------------------------------------------
// The Remote client: Retry-After and the overall timeout

#[tokio::test]
async fn remote_retries_a_429_after_retry_after_then_succeeds() {
    // One request per 3 s with no burst: a loaded machine cannot refill it between the
    // request that drains it and the next, yet the retry's wait stays short.
    let h = Harness::with_rate_limit(Some(RateLimit {
        replenish: Duration::from_secs(3),
        burst: 1,
    }))
    .await;
    // Drain the allowance until the service says 429.
    let mut drained = false;
    for _ in 0..5 {
        if h.get("/me", &h.owner_key).await.status.as_u16() == 429 {
            drained = true;
            break;
        }
    }
    assert!(drained, "the limiter answers 429");
    // Without retries: the 429 itself, with its wait.
    let e = h.remote(&h.owner_key).me().await.unwrap_err();
    assert_eq!(e.code, Code::RateLimited);
    let wait = e.retry_after().expect("retryAfterSeconds");
    assert!((1..=3).contains(&wait), "{wait}");
    // With one retry: it waits Retry-After (plus jitter) and then succeeds.
    let remote = h.remote(&h.owner_key).with_retry(RetryPolicy {
        retries: 1,
        max_wait: Duration::from_secs(10),
    });
    let t0 = std::time::Instant::now();
    let me = remote.me().await.expect("the retry succeeds");
    let took = t0.elapsed();
    assert_eq!(me.id, h.owner.user_id);
    assert!(took >= Duration::from_millis(900), "it waited: {took:?}");
    assert!(took < Duration::from_secs(8), "bounded: {took:?}");
}

#[tokio::test]
async fn remote_gives_up_after_its_overall_timeout() {
    // A server that accepts connections and never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let hold = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((sock, _)) = listener.accept().await {
            open.push(sock);
        }
    });
    let remote = Remote::new(&format!("http://{addr}"), "sk_whatever").unwrap();
    assert_eq!(remote.timeout(), Remote::DEFAULT_TIMEOUT);
    assert!(remote.timeout() > Duration::from_secs(600));
    let remote = remote.with_timeout(Duration::from_millis(300)).unwrap();
    let t0 = std::time::Instant::now();
    let e = remote.me().await.unwrap_err();
    let took = t0.elapsed();
    assert_eq!(e.code, Code::Timeout, "{e}");
    assert!(e.message.contains("EVALDECK_REQUEST_TIMEOUT"), "{e}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    hold.abort();
}
