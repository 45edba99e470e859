//! Which backend the workbench and the CLI talk to: flags beat environment variables, which
//! beat the settings file's `backend`, which beats the embedded store in the data directory.

use super::Target;
use super::output::Out;
use crate::spec::{Error, Result};

/// Where a `--db`, `--base-url` or `--api-key` value came from, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    Env,
    Flag,
}

/// Where each backend value of a parsed [`Target`] came from (`None`: not given).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sources {
    pub db: Option<Source>,
    pub base_url: Option<Source>,
    pub api_key: Option<Source>,
}

/// The settings file's default remote (`backend` in `workbench.json`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultBackend {
    pub url: String,
    /// The environment variable holding its API key.
    pub api_key_env: String,
}

impl Target {
    /// Settles the backend before anything opens it. The stronger of `--db`/`EVALDECK_DB`
    /// and `--base-url`/`EVALDECK_BASE_URL` wins (the URL on a tie); with neither, the
    /// settings file's backend, read only then through `settings`, with its key from
    /// `--api-key` or else the variable the file names (read through `env`); else the
    /// embedded default.
    pub fn settle(
        mut self,
        sources: Sources,
        settings: impl FnOnce() -> Result<Option<DefaultBackend>>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Target> {
        // A value clap filled in has a source; one set without (tests) counts as a flag.
        let strength = |set: bool, s: Option<Source>| set.then(|| s.unwrap_or(Source::Flag));
        let db = strength(self.db.is_some(), sources.db);
        let url = strength(self.base_url.is_some(), sources.base_url);
        match (db, url) {
            (Some(db), Some(url)) if db > url => {
                self.base_url = None;
                return Ok(self);
            }
            (Some(_), _) | (_, Some(_)) => return Ok(self),
            (None, None) => {}
        }
        let Some(default) = settings()? else {
            return Ok(self);
        };
        if strength(self.api_key.is_some(), sources.api_key) != Some(Source::Flag) {
            self.api_key = env(&default.api_key_env).filter(|k| !k.trim().is_empty());
        }
        self.base_url = Some(default.url);
        self.api_key_env = Some(default.api_key_env);
        Ok(self)
    }
}

/// Reports a failure to settle the backend the way every command reports errors, and
/// returns the exit code.
pub fn fail(json: bool, e: &Error) -> i32 {
    Out { json }.error(e);
    super::exit_code(&e.code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Code;
    use std::path::PathBuf;

    fn target() -> Target {
        Target {
            db: None,
            base_url: None,
            api_key: None,
            project: None,
            json: false,
            verbose: false,
            api_key_env: None,
            admin: None,
        }
    }

    fn remote() -> Result<Option<DefaultBackend>> {
        Ok(Some(DefaultBackend {
            url: "http://settings.test/api/v1".into(),
            api_key_env: "TEAM_KEY".into(),
        }))
    }

    fn no_settings() -> Result<Option<DefaultBackend>> {
        panic!("the settings file is read only when nothing else chose a backend")
    }

    fn env(name: &str) -> Option<String> {
        match name {
            "TEAM_KEY" => Some("sk_team".into()),
            "EMPTY_KEY" => Some("  ".into()),
            _ => None,
        }
    }

    #[test]
    fn the_settings_backend_applies_only_when_nothing_else_chose() {
        let t = target().settle(Sources::default(), remote, env).unwrap();
        assert_eq!(t.base_url.as_deref(), Some("http://settings.test/api/v1"));
        assert_eq!(t.api_key.as_deref(), Some("sk_team"));
        assert_eq!(t.api_key_env.as_deref(), Some("TEAM_KEY"));

        let t = target()
            .settle(Sources::default(), || Ok(None), env)
            .unwrap();
        assert_eq!(
            (t.base_url, t.db),
            (None, None),
            "no file: the embedded default"
        );
    }

    #[test]
    fn flags_and_env_vars_beat_the_settings_file() {
        for source in [Source::Flag, Source::Env] {
            let mut t = target();
            t.db = Some(PathBuf::from("/tmp/x.sqlite3"));
            let sources = Sources {
                db: Some(source),
                ..Sources::default()
            };
            let t = t.settle(sources, no_settings, env).unwrap();
            assert_eq!(
                t.base_url, None,
                "--db/EVALDECK_DB ({source:?}) stays embedded"
            );

            let mut t = target();
            t.base_url = Some("http://flag.test".into());
            t.api_key = Some("sk_flag".into());
            let sources = Sources {
                base_url: Some(source),
                api_key: Some(source),
                ..Sources::default()
            };
            let t = t.settle(sources, no_settings, env).unwrap();
            assert_eq!(t.base_url.as_deref(), Some("http://flag.test"));
            assert_eq!(t.api_key.as_deref(), Some("sk_flag"));
            assert_eq!(t.api_key_env, None);
        }
    }

    #[test]
    fn a_flag_beats_an_env_var_between_db_and_base_url() {
        let mut t = target();
        t.db = Some(PathBuf::from("/tmp/x.sqlite3"));
        t.base_url = Some("http://env.test".into());
        let sources = Sources {
            db: Some(Source::Flag),
            base_url: Some(Source::Env),
            ..Sources::default()
        };
        let t = t.settle(sources, no_settings, env).unwrap();
        assert_eq!(t.base_url, None, "--db beats EVALDECK_BASE_URL");

        let mut t = target();
        t.db = Some(PathBuf::from("/tmp/x.sqlite3"));
        t.base_url = Some("http://flag.test".into());
        let sources = Sources {
            db: Some(Source::Env),
            base_url: Some(Source::Flag),
            ..Sources::default()
        };
        let t = t.settle(sources, no_settings, env).unwrap();
        assert_eq!(t.base_url.as_deref(), Some("http://flag.test"));
    }

    #[test]
    fn the_settings_backends_key_comes_from_api_key_or_the_named_variable() {
        // --api-key wins over the named variable.
        let mut t = target();
        t.api_key = Some("sk_flag".into());
        let sources = Sources {
            api_key: Some(Source::Flag),
            ..Sources::default()
        };
        let t = t.settle(sources, remote, env).unwrap();
        assert_eq!(t.api_key.as_deref(), Some("sk_flag"));

        // EVALDECK_API_KEY belongs to EVALDECK_BASE_URL: the file names its own variable.
        let mut t = target();
        t.api_key = Some("sk_generic".into());
        let sources = Sources {
            api_key: Some(Source::Env),
            ..Sources::default()
        };
        let t = t.settle(sources, remote, env).unwrap();
        assert_eq!(t.api_key.as_deref(), Some("sk_team"));

        // An unset or blank variable leaves no key, and opening says which variable to set.
        let t = target()
            .settle(
                Sources::default(),
                || {
                    Ok(Some(DefaultBackend {
                        url: "http://settings.test".into(),
                        api_key_env: "EMPTY_KEY".into(),
                    }))
                },
                env,
            )
            .unwrap();
        assert_eq!(t.api_key, None);
        let e = t.backend().err().expect("no key, no backend");
        assert_eq!(e.code, Code::Unauthorized);
        assert!(e.message.contains("EMPTY_KEY"), "{}", e.message);
        assert!(e.message.contains("http://settings.test"), "{}", e.message);
    }

    #[test]
    fn a_malformed_settings_file_is_the_error() {
        let e = target()
            .settle(
                Sources::default(),
                || Err(Error::new(Code::ValidationError, "broken")),
                env,
            )
            .unwrap_err();
        assert_eq!(e.message, "broken");
        assert_eq!(crate::cli::exit_code(&e.code), 2);
    }
}
