//! How a webhook request is signed, so that its receiver can tell it came from this relay and
//! is recent. Two schemes: [Standard Webhooks](https://www.standardwebhooks.com)
//! (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>` over
//! `id.timestamp.body`), whose timestamp under the signature lets a receiver refuse a captured
//! request replayed later and which maintained libraries verify in every major language; and
//! outboxctl's first one, `X-Outboxctl-Signature: sha256=<hex>` over the body alone, kept byte
//! for byte so that the receivers written against it go on working. Several secrets (a key
//! rotation) give one signature each, space-separated in the one header. Keys are decoded and
//! checked when the route is planned, before any I/O. This module sends nothing and never
//! shows a key: its `Debug` says how many keys there are, not what they are.

use std::fmt;

use base64::Engine;
use base64::engine::DecodePaddingMode;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use thiserror::Error;

/// outboxctl's own signature header: `sha256=<hex>` of the body.
pub const SIGNATURE_HEADER: &str = "X-Outboxctl-Signature";
/// Standard Webhooks: the message id (the event id; a batch's `Idempotency-Key`).
pub const ID_HEADER: &str = "webhook-id";
/// Standard Webhooks: when this attempt was signed, in Unix seconds.
pub const TIMESTAMP_HEADER: &str = "webhook-timestamp";
/// Standard Webhooks: `v1,<base64>` per secret, space-separated.
pub const STANDARD_HEADER: &str = "webhook-signature";
/// What a Standard Webhooks secret starts with; the base64 of the key follows.
pub const SECRET_PREFIX: &str = "whsec_";

/// Base64 as the reference verifiers decode a key: the standard alphabet, padding optional.
const KEY_BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

type Key = Hmac<Sha256>;

/// A route's `signature:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Standard,
    Outboxctl,
    Both,
}

impl Scheme {
    pub fn parse(text: &str) -> Result<Self, SigningError> {
        match text {
            "standard" => Ok(Self::Standard),
            "outboxctl" => Ok(Self::Outboxctl),
            "both" => Ok(Self::Both),
            other => Err(SigningError::UnknownScheme(other.to_owned())),
        }
    }

    /// Without `signature:`: Standard Webhooks when every secret is one (`whsec_…`), outboxctl's
    /// when none is, so a receiver of before keeps its header; a mix has no default.
    fn default_for(var: &str, secrets: &[&str]) -> Result<Self, SigningError> {
        let standard = secrets
            .iter()
            .filter(|s| s.starts_with(SECRET_PREFIX))
            .count();
        if standard == secrets.len() {
            Ok(Self::Standard)
        } else if standard == 0 {
            Ok(Self::Outboxctl)
        } else {
            Err(SigningError::Mixed {
                var: var.to_owned(),
            })
        }
    }
}

/// Why a route's signing cannot work (the message reads after `relay.routes.R.signature: `).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SigningError {
    #[error("unknown value {0:?}: use standard, outboxctl or both")]
    UnknownScheme(String),
    #[error("needs secret_env, the variable that holds the signing secret")]
    NoSecret,
    #[error(
        "{var} holds whsec_ secrets and others: say which scheme with signature: standard, outboxctl or both"
    )]
    Mixed { var: String },
    /// Never the secret itself: only where it is.
    #[error(
        "secret {index} of {var} is not a Standard Webhooks key (whsec_ then the key in base64, standard alphabet)"
    )]
    NotBase64 { var: String, index: usize },
    #[error("secret {index} of {var} is an empty key")]
    EmptyKey { var: String, index: usize },
}

/// The keys a route signs with, per scheme (both lists filled under `both`).
#[derive(Clone)]
pub struct Signer {
    /// Standard Webhooks: the base64-decoded key of each secret.
    standard: Vec<Key>,
    /// outboxctl's: each secret's bytes as written.
    outboxctl: Vec<Key>,
}

impl fmt::Debug for Signer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Signer {{ standard: {} key(s), outboxctl: {} key(s) }}",
            self.standard.len(),
            self.outboxctl.len()
        )
    }
}

fn key(bytes: &[u8]) -> Key {
    Key::new_from_slice(bytes).expect("HMAC takes any key length")
}

impl Signer {
    /// The signer for `secrets` (the value of the variable `var` names: one secret, or several
    /// separated by spaces during a rotation) under `scheme`, or the default for the secrets.
    /// Standard Webhooks keys are the base64 after `whsec_`; a secret without the prefix is
    /// read as base64 too, as the reference libraries read it.
    pub fn new(var: &str, secrets: &str, scheme: Option<Scheme>) -> Result<Self, SigningError> {
        let secrets: Vec<&str> = secrets.split_whitespace().collect();
        if secrets.is_empty() {
            return Err(SigningError::NoSecret);
        }
        let scheme = match scheme {
            Some(s) => s,
            None => Scheme::default_for(var, &secrets)?,
        };
        let mut signer = Self {
            standard: Vec::new(),
            outboxctl: Vec::new(),
        };
        for (i, secret) in secrets.iter().enumerate() {
            if scheme != Scheme::Outboxctl {
                let b64 = secret.strip_prefix(SECRET_PREFIX).unwrap_or(secret);
                let bytes = KEY_BASE64
                    .decode(b64)
                    .map_err(|_| SigningError::NotBase64 {
                        var: var.to_owned(),
                        index: i + 1,
                    })?;
                if bytes.is_empty() {
                    return Err(SigningError::EmptyKey {
                        var: var.to_owned(),
                        index: i + 1,
                    });
                }
                signer.standard.push(key(&bytes));
            }
            if scheme != Scheme::Standard {
                signer.outboxctl.push(key(secret.as_bytes()));
            }
        }
        Ok(signer)
    }

    /// The signature headers of one attempt: `id` is the message's id (stable across
    /// attempts), `timestamp` when this attempt is sent, in Unix seconds.
    pub fn headers(&self, id: &str, timestamp: u64, body: &[u8]) -> Vec<(&'static str, String)> {
        let mut out = Vec::with_capacity(4);
        if !self.standard.is_empty() {
            let timestamp = timestamp.to_string();
            let signatures = self
                .standard
                .iter()
                .map(|k| standard_signature(k.clone(), id, &timestamp, body))
                .collect::<Vec<_>>()
                .join(" ");
            out.push((ID_HEADER, id.to_owned()));
            out.push((TIMESTAMP_HEADER, timestamp));
            out.push((STANDARD_HEADER, signatures));
        }
        if !self.outboxctl.is_empty() {
            let signatures = self
                .outboxctl
                .iter()
                .map(|k| outboxctl_signature(k.clone(), body))
                .collect::<Vec<_>>()
                .join(" ");
            out.push((SIGNATURE_HEADER, signatures));
        }
        out
    }
}

/// `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`.
fn standard_signature(mut key: Key, id: &str, timestamp: &str, body: &[u8]) -> String {
    key.update(id.as_bytes());
    key.update(b".");
    key.update(timestamp.as_bytes());
    key.update(b".");
    key.update(body);
    format!("v1,{}", STANDARD.encode(key.finalize().into_bytes()))
}

fn outboxctl_signature(mut key: Key, body: &[u8]) -> String {
    key.update(body);
    format!("sha256={}", hex(&key.finalize().into_bytes()))
}

/// Lowercase hex.
pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// outboxctl's signature, `sha256=<hex>` of the body under the secret's bytes.
pub fn signature(secret: &[u8], body: &[u8]) -> String {
    outboxctl_signature(key(secret), body)
}

/// Standard Webhooks' signature, `v1,<base64>` (for tests and receivers written in Rust).
pub fn standard(key_bytes: &[u8], id: &str, timestamp: u64, body: &[u8]) -> String {
    standard_signature(key(key_bytes), id, &timestamp.to_string(), body)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Standard Webhooks reference libraries' test vector.
    const VECTOR_SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const VECTOR_ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const VECTOR_TIMESTAMP: u64 = 1614265330;
    const VECTOR_BODY: &[u8] = br#"{"test": 2432232314}"#;
    const VECTOR_SIGNATURE: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    fn headers(secrets: &str, scheme: Option<Scheme>) -> Vec<(&'static str, String)> {
        Signer::new("HOOK_SECRET", secrets, scheme)
            .unwrap()
            .headers(VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY)
    }

    #[test]
    fn a_whsec_secret_signs_the_standard_webhooks_vector() {
        assert_eq!(
            headers(VECTOR_SECRET, None),
            [
                (ID_HEADER, VECTOR_ID.to_owned()),
                (TIMESTAMP_HEADER, "1614265330".to_owned()),
                (STANDARD_HEADER, VECTOR_SIGNATURE.to_owned()),
            ]
        );
    }

    #[test]
    fn a_secret_without_the_prefix_is_read_as_base64_under_standard() {
        let bare = VECTOR_SECRET.strip_prefix("whsec_").unwrap();
        let h = headers(bare, Some(Scheme::Standard));
        assert_eq!(h[2], (STANDARD_HEADER, VECTOR_SIGNATURE.to_owned()));
        // padding is optional, as the reference verifiers read keys
        assert_eq!(
            headers("whsec_c2VjcmV0Lg==", None)[2],
            headers("whsec_c2VjcmV0Lg", None)[2],
        );
    }

    #[test]
    fn rotation_gives_one_signature_per_secret() {
        let other = "whsec_c2VjcmV0LWtleS10d28=";
        let h = headers(&format!("{VECTOR_SECRET} {other}"), None);
        let second = standard(b"secret-key-two", VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY);
        assert_eq!(
            h[2],
            (STANDARD_HEADER, format!("{VECTOR_SIGNATURE} {second}"))
        );
    }

    #[test]
    fn outboxctl_is_the_default_without_whsec_and_unchanged() {
        // RFC 4231 test case 2: the header as before, byte for byte, and nothing else
        let body = b"what do ya want for nothing?";
        let h = Signer::new("HOOK_SECRET", "Jefe", None)
            .unwrap()
            .headers("id", 1, body);
        assert_eq!(
            h,
            [(
                SIGNATURE_HEADER,
                "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
                    .to_owned()
            )]
        );
        assert_eq!(signature(b"Jefe", body), h[0].1);
        // several: one sha256= each, space-separated; a whsec_ secret signs with its bytes
        let h = Signer::new("HOOK_SECRET", "Jefe whsec_abc", Some(Scheme::Outboxctl))
            .unwrap()
            .headers("id", 1, body);
        assert_eq!(
            h[0].1,
            format!(
                "{} {}",
                signature(b"Jefe", body),
                signature(b"whsec_abc", body)
            )
        );
    }

    #[test]
    fn both_sends_both_headers() {
        let h = headers(VECTOR_SECRET, Some(Scheme::Both));
        let names: Vec<&str> = h.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            names,
            [
                ID_HEADER,
                TIMESTAMP_HEADER,
                STANDARD_HEADER,
                SIGNATURE_HEADER
            ]
        );
        assert_eq!(h[2].1, VECTOR_SIGNATURE);
        assert_eq!(h[3].1, signature(VECTOR_SECRET.as_bytes(), VECTOR_BODY));
    }

    #[test]
    fn bad_secrets_and_values_are_refused_without_showing_the_secret() {
        let err = |secrets: &str, scheme| Signer::new("HOOK_SECRET", secrets, scheme).unwrap_err();
        assert_eq!(
            Scheme::parse("sha256"),
            Err(SigningError::UnknownScheme("sha256".into()))
        );
        let e = err("whsec_not*base64", None);
        assert_eq!(
            e,
            SigningError::NotBase64 {
                var: "HOOK_SECRET".into(),
                index: 1
            }
        );
        assert!(!e.to_string().contains("not*base64"), "{e}");
        assert_eq!(
            err("s3cret!", Some(Scheme::Both)),
            SigningError::NotBase64 {
                var: "HOOK_SECRET".into(),
                index: 1
            }
        );
        assert_eq!(
            err("whsec_", None),
            SigningError::EmptyKey {
                var: "HOOK_SECRET".into(),
                index: 1
            }
        );
        assert_eq!(
            err(&format!("{VECTOR_SECRET} s3cret"), None),
            SigningError::Mixed {
                var: "HOOK_SECRET".into()
            }
        );
        assert_eq!(err("  ", None), SigningError::NoSecret);
    }

    #[test]
    fn debug_shows_no_key() {
        // "Jefe" is base64 too (3 bytes): both schemes take it
        let shown = format!(
            "{:?}",
            Signer::new("HOOK_SECRET", "Jefe", Some(Scheme::Both)).unwrap()
        );
        assert_eq!(shown, "Signer { standard: 1 key(s), outboxctl: 1 key(s) }");
    }
}
