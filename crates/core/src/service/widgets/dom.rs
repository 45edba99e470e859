//! Acting on a view and asserting on its live DOM.
//!
//! A **target** names elements: a string is a CSS selector; an object gives `selector`, or
//! `text` (elements whose text contains it, innermost first, case-insensitive), or `role`
//! with an optional `name` (explicit `role` attributes and the usual implicit roles:
//! `button`, `link`, `textbox`, `checkbox`, `radio`, `combobox`, `heading`, `listitem`, …).
//!
//! An **`interact` step's `action`** has one verb:
//!
//! | action | does |
//! |---|---|
//! | `{"click": T}` | a real mouse click at the centre of the first match |
//! | `{"type": T, "text": "…"}` | focuses the first match and types the text (real input events, then `change`) |
//! | `{"select": T, "value": "…"}` | chooses the option of a `<select>` whose value or label is `value` |
//! | `{"waitFor": T}` | waits until a match is visible |
//!
//! Each takes an optional `timeoutMs` (default 3000) to wait for its target to appear.
//!
//! **DOM widget assertions** (in `assert` steps; evaluated on the live view, so a regrade
//! cannot redo them): `widgetElementExists` (a target), `widgetElementVisible` (a target),
//! `widgetTextContains` (`needle`, optional target, `caseSensitive`), `widgetElementCount`
//! (a target and `count`, or `min`/`max`). Each takes an optional `toolName` (the view of
//! that tool's latest call, else the latest view) and `timeoutMs` (default 1500): a check
//! is retried until it holds or the time is up, since views render asynchronously.

use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::input::InsertTextParams;
use chromiumoxide::layout::Point;
use serde_json::{Value, json};

use super::View;

/// The DOM widget assertion types.
pub const DOM_TYPES: &[&str] = &[
    "widgetElementExists",
    "widgetElementVisible",
    "widgetTextContains",
    "widgetElementCount",
];

/// The view-record assertion types the spec defines.
pub const RECORD_TYPES: &[&str] = &[
    "widgetRendered",
    "widgetRenderLatencyUnder",
    "widgetNoConsoleErrors",
];

/// Whether an assertion of `kind` needs a live view (and so cannot be regraded).
pub fn is_widget_type(kind: &str) -> bool {
    DOM_TYPES.contains(&kind) || RECORD_TYPES.contains(&kind)
}

const DEFAULT_WAIT: Duration = Duration::from_millis(3000);

/// The finder, shared by actions and checks: `(target) => Element[]`.
const FIND: &str = r#"(t) => {
  const norm = s => (s || '').replace(/\s+/g, ' ').trim();
  const all = Array.from(document.querySelectorAll('body *'));
  if (t.selector) return Array.from(document.querySelectorAll(t.selector));
  if (t.text) {
    const want = norm(t.text).toLowerCase();
    const text = el => norm(el.innerText || el.textContent || (el.tagName === 'INPUT' ? el.value : '')).toLowerCase();
    const hits = all.filter(el => !['SCRIPT', 'STYLE', 'TEMPLATE'].includes(el.tagName) && text(el).includes(want));
    return hits.filter(el => !hits.some(o => o !== el && el.contains(o)));
  }
  if (t.role) {
    const implicit = el => {
      const tag = el.tagName, type = (el.getAttribute('type') || '').toLowerCase();
      if (tag === 'BUTTON' || (tag === 'INPUT' && ['button', 'submit', 'reset', 'image'].includes(type))) return 'button';
      if (tag === 'A' && el.hasAttribute('href')) return 'link';
      if (tag === 'TEXTAREA' || (tag === 'INPUT' && ['', 'text', 'email', 'search', 'url', 'tel', 'password'].includes(type))) return 'textbox';
      if (tag === 'INPUT' && type === 'checkbox') return 'checkbox';
      if (tag === 'INPUT' && type === 'radio') return 'radio';
      if (tag === 'INPUT' && type === 'number') return 'spinbutton';
      if (tag === 'SELECT') return 'combobox';
      if (/^H[1-6]$/.test(tag)) return 'heading';
      if (tag === 'UL' || tag === 'OL') return 'list';
      if (tag === 'LI') return 'listitem';
      if (tag === 'IMG') return 'img';
      if (tag === 'TABLE') return 'table';
      if (tag === 'TR') return 'row';
      if (tag === 'TD') return 'cell';
      if (tag === 'TH') return 'columnheader';
      if (tag === 'NAV') return 'navigation';
      if (tag === 'DIALOG') return 'dialog';
      return '';
    };
    const name = el => norm(el.getAttribute('aria-label') || (el.labels && el.labels[0] && el.labels[0].innerText)
      || el.innerText || el.textContent || el.value || el.getAttribute('placeholder') || el.getAttribute('title') || el.getAttribute('alt'));
    const want = t.name ? norm(t.name).toLowerCase() : null;
    return all.filter(el => (el.getAttribute('role') || implicit(el)) === t.role
      && (!want || name(el).toLowerCase().includes(want)));
  }
  return [];
}"#;

const VISIBLE: &str = r#"(el) => {
  const r = el.getBoundingClientRect(), s = getComputedStyle(el);
  return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none' && parseFloat(s.opacity || '1') > 0;
}"#;

/// Elements named by a target.
#[derive(Debug, Clone, PartialEq)]
pub struct Target(Value);

impl Target {
    /// A target from a string (a CSS selector) or an object with `selector`, `text` or `role`.
    pub fn parse(v: &Value) -> Result<Target, String> {
        match v {
            Value::String(s) if !s.trim().is_empty() => Ok(Target(json!({"selector": s}))),
            Value::Object(o) => Self::from_fields(o)
                .ok_or_else(|| "a target needs `selector`, `text` or `role`".to_string()),
            _ => Err(
                "a target is a CSS selector string or an object with `selector`, `text` or `role`"
                    .into(),
            ),
        }
    }

    /// The target given by an object's own `selector`, `text` or `role` (+ `name`) keys.
    pub fn from_fields(o: &serde_json::Map<String, Value>) -> Option<Target> {
        let mut t = serde_json::Map::new();
        for k in ["selector", "text", "role", "name"] {
            if let Some(Value::String(s)) = o.get(k)
                && !s.trim().is_empty()
            {
                t.insert(k.into(), json!(s));
            }
        }
        (t.contains_key("selector") || t.contains_key("text") || t.contains_key("role"))
            .then_some(Target(Value::Object(t)))
    }

    /// How a message names it.
    pub fn describe(&self) -> String {
        let o = &self.0;
        if let Some(s) = o["selector"].as_str() {
            format!("`{s}`")
        } else if let Some(s) = o["text"].as_str() {
            format!("the text \"{s}\"")
        } else {
            match o["name"].as_str() {
                Some(n) => format!("the {} \"{n}\"", o["role"].as_str().unwrap_or("element")),
                None => format!("a {}", o["role"].as_str().unwrap_or("element")),
            }
        }
    }

    fn js(&self) -> String {
        self.0.to_string()
    }
}

/// One widget action.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Click(Target),
    Type(Target, String),
    Select(Target, String),
    WaitFor(Target),
}

impl Action {
    /// Parses an `interact` step's `action`, with its wait limit.
    pub fn parse(v: &Value) -> Result<(Action, Duration), String> {
        let o = v
            .as_object()
            .ok_or("an `interact` action is an object such as {\"click\": \"#buy\"}")?;
        let wait = match o.get("timeoutMs") {
            None => DEFAULT_WAIT,
            Some(t) => Duration::from_millis(
                t.as_u64()
                    .filter(|t| *t <= 60_000)
                    .ok_or("`timeoutMs` is a whole number of milliseconds, at most 60000")?,
            ),
        };
        let text = |k: &str| {
            o.get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| format!("this action needs a string `{k}`"))
        };
        let action = if let Some(t) = o.get("click") {
            Action::Click(Target::parse(t)?)
        } else if let Some(t) = o.get("type") {
            Action::Type(Target::parse(t)?, text("text")?)
        } else if let Some(t) = o.get("select") {
            Action::Select(Target::parse(t)?, text("value")?)
        } else if let Some(t) = o.get("waitFor") {
            Action::WaitFor(Target::parse(t)?)
        } else {
            return Err(
                "an `interact` action needs one of `click`, `type`, `select`, `waitFor`".into(),
            );
        };
        Ok((action, wait))
    }

    fn target(&self) -> &Target {
        match self {
            Action::Click(t) | Action::Type(t, _) | Action::Select(t, _) | Action::WaitFor(t) => t,
        }
    }
}

/// What a DOM assertion saw, and whether it held.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    pub passed: bool,
    pub actual: Value,
    pub message: String,
}

impl View {
    /// How many elements match `target` (only visible ones when `visible`).
    async fn count(&self, target: &Target, visible: bool) -> Result<u64, String> {
        let js = format!(
            "(() => {{ const f = {FIND}; const v = {VISIBLE}; return f({}).filter(e => !{visible} || v(e)).length; }})()",
            target.js()
        );
        Ok(self.eval_in_view(js).await?.as_u64().unwrap_or(0))
    }

    /// Polls until `target` has a (visible, when asked) match or `wait` ends; the count.
    async fn wait_for(
        &self,
        target: &Target,
        visible: bool,
        wait: Duration,
    ) -> Result<usize, String> {
        let end = Instant::now() + wait;
        loop {
            let n = self.count(target, visible).await? as usize;
            if n > 0 || Instant::now() >= end {
                return Ok(n);
            }
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
    }

    /// Performs one action: `Ok(Ok(what was done))`, `Ok(Err(why the view did not allow
    /// it))` (no such element), or `Err` when the browser failed.
    pub async fn act(
        &self,
        action: &Action,
        wait: Duration,
    ) -> Result<Result<String, String>, String> {
        let target = action.target();
        let visible = !matches!(action, Action::Select(..));
        if self.wait_for(target, visible, wait).await? == 0 {
            return Ok(Err(format!(
                "no {}element matches {} in the view (waited {} ms)",
                if visible { "visible " } else { "" },
                target.describe(),
                wait.as_millis()
            )));
        }
        let first = format!("({FIND})({})[0]", target.js());
        match action {
            Action::Click(_) => {
                let js = format!(
                    "(() => {{ const el = {first}; el.scrollIntoView({{block: 'center'}}); const r = el.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
                );
                let at = self.eval_in_view(js).await?;
                let (x, y) = (at[0].as_f64().unwrap_or(0.0), at[1].as_f64().unwrap_or(0.0));
                let (ox, oy) = self.origin().await?;
                self.page()
                    .click(Point {
                        x: ox + x,
                        y: oy + y,
                    })
                    .await
                    .map_err(|e| format!("the click failed: {e}"))?;
                self.touch();
                Ok(Ok(format!("clicked {}", target.describe())))
            }
            Action::Type(_, text) => {
                self.eval_in_view(format!(
                    "(() => {{ const el = {first}; el.focus(); return true; }})()"
                ))
                .await?;
                self.page()
                    .execute(InsertTextParams::new(text.clone()))
                    .await
                    .map_err(|e| format!("typing failed: {e}"))?;
                self.touch();
                self.eval_in_view(format!(
                    "(() => {{ const el = {first}; el.dispatchEvent(new Event('change', {{bubbles: true}})); return true; }})()"
                ))
                .await?;
                Ok(Ok(format!(
                    "typed {} characters into {}",
                    text.chars().count(),
                    target.describe()
                )))
            }
            Action::Select(_, value) => {
                let js = format!(
                    "(() => {{ const el = {first}; if (el.tagName !== 'SELECT') return 'not a <select>';
                      const o = Array.from(el.options).find(o => o.value === {v} || o.text.trim() === {v});
                      if (!o) return 'no option ' + {v};
                      el.value = o.value; el.dispatchEvent(new Event('input', {{bubbles: true}}));
                      el.dispatchEvent(new Event('change', {{bubbles: true}})); return ''; }})()",
                    v = json!(value)
                );
                let chosen = self.eval_in_view(js).await?;
                self.touch();
                match chosen.as_str() {
                    Some("") => Ok(Ok(format!("selected \"{value}\" in {}", target.describe()))),
                    Some(why) => Ok(Err(format!("{} has {why}", target.describe()))),
                    None => Err("the selection failed".into()),
                }
            }
            Action::WaitFor(_) => Ok(Ok(format!("{} is visible", target.describe()))),
        }
    }

    /// Evaluates a DOM widget assertion, retrying until it holds or its `timeoutMs`
    /// (default 1500) ends: views render asynchronously, as a user would wait for them.
    pub async fn check(&self, assertion: &Value) -> Result<Observed, String> {
        let wait =
            Duration::from_millis(assertion["timeoutMs"].as_u64().unwrap_or(1500).min(60_000));
        let end = Instant::now() + wait;
        loop {
            let seen = self.check_once(assertion).await?;
            if seen.passed || Instant::now() >= end {
                return Ok(seen);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn check_once(&self, assertion: &Value) -> Result<Observed, String> {
        let kind = assertion["type"].as_str().unwrap_or_default();
        let o = assertion.as_object().cloned().unwrap_or_default();
        let target = Target::from_fields(&o);
        let need = |t: Option<Target>| {
            t.ok_or_else(|| format!("`{kind}` needs `selector`, `text` or `role`"))
        };
        match kind {
            "widgetElementExists" | "widgetElementVisible" => {
                let t = need(target)?;
                let visible = kind == "widgetElementVisible";
                let n = self.count(&t, visible).await?;
                let what = if visible { "visible " } else { "" };
                Ok(Observed {
                    passed: n > 0,
                    actual: json!({"matches": n}),
                    message: if n > 0 {
                        format!("{n} {what}element(s) match {}", t.describe())
                    } else {
                        format!("no {what}element matches {}", t.describe())
                    },
                })
            }
            "widgetElementCount" => {
                let t = need(target)?;
                let n = self.count(&t, false).await?;
                let (exact, min, max) = (
                    assertion["count"].as_u64(),
                    assertion["min"].as_u64(),
                    assertion["max"].as_u64(),
                );
                if exact.is_none() && min.is_none() && max.is_none() {
                    return Err("`widgetElementCount` needs `count`, or `min`/`max`".into());
                }
                let ok = exact.is_none_or(|c| n == c)
                    && min.is_none_or(|m| n >= m)
                    && max.is_none_or(|m| n <= m);
                let want = match (exact, min, max) {
                    (Some(c), _, _) => format!("exactly {c}"),
                    (None, Some(a), Some(b)) => format!("{a} to {b}"),
                    (None, Some(a), None) => format!("at least {a}"),
                    (None, None, Some(b)) => format!("at most {b}"),
                    _ => String::new(),
                };
                Ok(Observed {
                    passed: ok,
                    actual: json!({"matches": n}),
                    message: format!("{n} element(s) match {} (expected {want})", t.describe()),
                })
            }
            "widgetTextContains" => {
                let needle = assertion["needle"]
                    .as_str()
                    .filter(|s| !s.is_empty())
                    .ok_or("`widgetTextContains` needs a non-empty `needle`")?;
                let scope = match &target {
                    // `text` would be the needle's own finder; only selector/role scope it.
                    Some(t) if t.0.get("text").is_none() => {
                        format!("({FIND})({}).map(e => e.innerText).join('\\n')", t.js())
                    }
                    _ => "document.body ? document.body.innerText : ''".into(),
                };
                let text = self.eval_in_view(format!("(() => {scope})()")).await?;
                let text = text.as_str().unwrap_or_default().to_string();
                let case = assertion["caseSensitive"] == true;
                let ok = if case {
                    text.contains(needle)
                } else {
                    text.to_lowercase().contains(&needle.to_lowercase())
                };
                let shown: String = text.chars().take(300).collect();
                Ok(Observed {
                    passed: ok,
                    actual: json!({"text": shown}),
                    message: if ok {
                        format!("the view's text contains \"{needle}\"")
                    } else {
                        format!("the view's text does not contain \"{needle}\"")
                    },
                })
            }
            other => Err(format!("`{other}` is not a DOM widget assertion")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_parse_in_their_documented_shapes() {
        let (a, w) = Action::parse(&json!({"click": "#buy"})).unwrap();
        assert_eq!(a, Action::Click(Target(json!({"selector": "#buy"}))));
        assert_eq!(w, DEFAULT_WAIT);
        let (a, w) =
            Action::parse(&json!({"type": {"role": "textbox"}, "text": "hi", "timeoutMs": 50}))
                .unwrap();
        assert_eq!(
            a,
            Action::Type(Target(json!({"role": "textbox"})), "hi".into())
        );
        assert_eq!(w, Duration::from_millis(50));
        assert!(matches!(
            Action::parse(&json!({"select": "#s", "value": "L"}))
                .unwrap()
                .0,
            Action::Select(..)
        ));
        assert!(matches!(
            Action::parse(&json!({"waitFor": {"text": "Total"}}))
                .unwrap()
                .0,
            Action::WaitFor(..)
        ));
    }

    #[test]
    fn bad_actions_say_what_is_missing() {
        for (v, says) in [
            (json!("click"), "is an object"),
            (json!({"hover": "#x"}), "one of `click`"),
            (json!({"type": "#q"}), "`text`"),
            (json!({"click": ""}), "CSS selector"),
            (json!({"click": {"nth": 1}}), "`selector`, `text` or `role`"),
            (json!({"click": "#x", "timeoutMs": -1}), "timeoutMs"),
        ] {
            let e = Action::parse(&v).unwrap_err();
            assert!(e.contains(says), "{v}: {e}");
        }
    }

    #[test]
    fn widget_types_are_known() {
        assert!(is_widget_type("widgetRendered"));
        assert!(is_widget_type("widgetElementCount"));
        assert!(!is_widget_type("toolCalledWith"));
    }
}
