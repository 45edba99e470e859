//! Secrets at rest: the header and environment values of saved servers and the OAuth
//! tokens and client secrets imported for them are stored encrypted, never in clear.
//!
//! - **Cipher**: XChaCha20-Poly1305 (the RustCrypto `chacha20poly1305` crate), a fresh
//!   random 192-bit nonce per value. A sealed value is the text `evs1:` + base64 of nonce
//!   and ciphertext, so a value shows whether it is sealed.
//! - **Key**: 256 bits from `EVALDECK_SECRET_KEY` (base64, or 64 hex digits) when set,
//!   else from the key file beside the store (`<database file>.key`, base64), created on
//!   first use with mode 0600. Keep the key with the database (a backup of one without
//!   the other loses the secrets). The store keeps a sealed check value: opening it with
//!   another key is refused with a message saying so, rather than failing on each secret.
//! - **Migration**: opening a store that still holds secrets in clear (written before
//!   this) seals them in one transaction, with SQLite's `secure_delete` on and the WAL
//!   checkpointed, so the clear values are gone from the file too.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use rand::RngCore;
use std::path::{Path, PathBuf};

use crate::spec::server::{ServerConfig, Transport};
use crate::spec::{Error, Result};

/// The prefix of a sealed value.
pub const SEALED: &str = "evs1:";

/// The environment variable that supplies the key instead of the key file.
pub const KEY_ENV: &str = "EVALDECK_SECRET_KEY";

/// Encrypts and decrypts secret values under the store's key.
pub struct Sealer {
    cipher: XChaCha20Poly1305,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer")
    }
}

/// The key file of the database at `db`.
pub fn key_path(db: &Path) -> PathBuf {
    let mut p = db.as_os_str().to_owned();
    p.push(".key");
    PathBuf::from(p)
}

fn decode_key(text: &str, whence: &str) -> Result<[u8; 32]> {
    let t = text.trim();
    let bytes = if t.len() == 64 && t.chars().all(|c| c.is_ascii_hexdigit()) {
        (0..32)
            .map(|i| u8::from_str_radix(&t[2 * i..2 * i + 2], 16))
            .collect::<std::result::Result<Vec<_>, _>>()
            .ok()
    } else {
        B64.decode(t).ok()
    };
    bytes
        .and_then(|b| <[u8; 32]>::try_from(b.as_slice()).ok())
        .ok_or_else(|| {
            Error::internal(format!(
                "{whence} does not hold a secret key: give 32 bytes as base64 or 64 hex digits"
            ))
        })
}

impl Sealer {
    pub fn new(key: [u8; 32]) -> Sealer {
        Sealer {
            cipher: XChaCha20Poly1305::new(&key.into()),
        }
    }

    /// The key from [`KEY_ENV`], else from the key file beside `db` (created if missing).
    pub fn for_store(db: &Path) -> Result<Sealer> {
        if let Ok(v) = std::env::var(KEY_ENV)
            && !v.trim().is_empty()
        {
            return Ok(Sealer::new(decode_key(&v, KEY_ENV)?));
        }
        let path = key_path(db);
        match std::fs::read_to_string(&path) {
            Ok(text) => return Ok(Sealer::new(decode_key(&text, &path.display().to_string())?)),
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::internal(format!(
                    "cannot read the secret key {}: {e}",
                    path.display()
                )));
            }
            Err(_) => {}
        }
        let mut key = [0u8; 32];
        rand::rng().fill_bytes(&mut key);
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        match opts.open(&path) {
            Ok(mut f) => {
                use std::io::Write;
                f.write_all(format!("{}\n", B64.encode(key)).as_bytes())
                    .and_then(|_| f.sync_all())
                    .map_err(|e| {
                        Error::internal(format!(
                            "cannot write the secret key {}: {e}",
                            path.display()
                        ))
                    })?;
                Ok(Sealer::new(key))
            }
            // Another process created it first: use theirs.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let text = std::fs::read_to_string(&path).map_err(|e| {
                    Error::internal(format!(
                        "cannot read the secret key {}: {e}",
                        path.display()
                    ))
                })?;
                Ok(Sealer::new(decode_key(&text, &path.display().to_string())?))
            }
            Err(e) => Err(Error::internal(format!(
                "cannot create the secret key {}: {e}",
                path.display()
            ))),
        }
    }

    /// Seals `plain` under a fresh nonce.
    pub fn seal(&self, plain: &str) -> String {
        let mut nonce = [0u8; 24];
        rand::rng().fill_bytes(&mut nonce);
        let ct = self
            .cipher
            .encrypt(&XNonce::from(nonce), plain.as_bytes())
            .expect("encryption of a bounded value does not fail");
        let mut out = Vec::with_capacity(24 + ct.len());
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&ct);
        format!("{SEALED}{}", B64.encode(out))
    }

    /// Opens a sealed value (a value in clear, from before sealing, is returned as is).
    pub fn open(&self, value: &str) -> Result<String> {
        let Some(b64) = value.strip_prefix(SEALED) else {
            return Ok(value.to_string());
        };
        let raw = B64
            .decode(b64)
            .ok()
            .filter(|r| r.len() > 24)
            .ok_or_else(|| Error::internal("a stored secret is corrupt"))?;
        let nonce = <[u8; 24]>::try_from(&raw[..24]).expect("24 bytes");
        let plain = self
            .cipher
            .decrypt(&XNonce::from(nonce), &raw[24..])
            .map_err(|_| {
                Error::internal(format!(
                    "a stored secret does not open with this key (the key file beside the database, or {KEY_ENV})"
                ))
            })?;
        String::from_utf8(plain).map_err(|_| Error::internal("a stored secret is corrupt"))
    }

    fn map_secrets(
        &self,
        config: &ServerConfig,
        f: impl Fn(&str) -> Result<String>,
    ) -> Result<ServerConfig> {
        let mut c = config.clone();
        let values = match &mut c.transport {
            Transport::Stdio { env, .. } => env,
            Transport::Http { headers, .. } | Transport::Sse { headers, .. } => headers,
        };
        for v in values.values_mut() {
            *v = f(v)?;
        }
        Ok(c)
    }

    /// The config as stored: every header and environment value sealed.
    pub fn seal_config(&self, config: &ServerConfig) -> ServerConfig {
        self.map_secrets(config, |v| {
            Ok(if v.starts_with(SEALED) {
                v.to_string()
            } else {
                self.seal(v)
            })
        })
        .expect("sealing does not fail")
    }

    /// The config as used: every header and environment value opened.
    pub fn open_config(&self, config: &ServerConfig) -> Result<ServerConfig> {
        self.map_secrets(config, |v| self.open(v))
    }

    pub fn seal_opt(&self, v: Option<&str>) -> Option<String> {
        v.map(|v| self.seal(v))
    }

    pub fn open_opt(&self, v: Option<String>) -> Result<Option<String>> {
        v.map(|v| self.open(&v)).transpose()
    }
}

/// Whether a stored config still holds a secret value in clear.
pub fn has_clear_secrets(config: &ServerConfig) -> bool {
    let values = match &config.transport {
        Transport::Stdio { env, .. } => env,
        Transport::Http { headers, .. } | Transport::Sse { headers, .. } => headers,
    };
    values.values().any(|v| !v.starts_with(SEALED))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_only_with_their_key_and_never_repeat() {
        let a = Sealer::new([7; 32]);
        let s1 = a.seal("Bearer t0ken");
        let s2 = a.seal("Bearer t0ken");
        assert!(s1.starts_with(SEALED) && !s1.contains("t0ken"));
        assert_ne!(s1, s2, "a fresh nonce per value");
        assert_eq!(a.open(&s1).unwrap(), "Bearer t0ken");
        assert!(Sealer::new([8; 32]).open(&s1).is_err());
        assert_eq!(a.open("legacy clear").unwrap(), "legacy clear");
        let mut tampered = s1.clone();
        tampered.pop();
        tampered.push('A');
        assert!(a.open(&tampered).is_err() || tampered == s1);
    }

    #[test]
    fn keys_come_as_base64_or_hex() {
        assert_eq!(decode_key(&B64.encode([1u8; 32]), "k").unwrap(), [1; 32]);
        assert_eq!(decode_key(&"ab".repeat(32), "k").unwrap(), [0xab; 32]);
        assert!(decode_key("short", "k").is_err());
    }
}
