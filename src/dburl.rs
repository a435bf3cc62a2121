//! The database URL: which backend it names, and a form that is safe to print.
//!
//! `Display` and `Debug` never show the password; only [`DatabaseUrl::expose`] does, and only
//! the connection code calls it.

use std::fmt;

use thiserror::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Postgres,
    Mongo,
}

impl Backend {
    /// Its name in output and in `schema print --backend`.
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Postgres => "postgres",
            Backend::Mongo => "mongo",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum UrlError {
    #[error(
        "database URL {0} has no supported scheme: use postgres://, postgresql://, mongodb:// or mongodb+srv://"
    )]
    Scheme(String),
}

/// A database URL whose password is masked whenever it is displayed.
#[derive(Clone, PartialEq, Eq)]
pub struct DatabaseUrl {
    raw: String,
    backend: Backend,
}

impl DatabaseUrl {
    pub fn parse(raw: &str) -> Result<Self, UrlError> {
        let raw = raw.trim();
        let scheme = raw.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
        let backend = match scheme.as_deref() {
            Some("postgres" | "postgresql") => Backend::Postgres,
            Some("mongodb" | "mongodb+srv") => Backend::Mongo,
            _ => return Err(UrlError::Scheme(mask(raw))),
        };
        Ok(Self {
            raw: raw.to_owned(),
            backend,
        })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The URL with its password, for the driver only. Never print this.
    pub fn expose(&self) -> &str {
        &self.raw
    }

    /// The password, if the URL carries one (used to scrub driver messages).
    pub fn password(&self) -> Option<&str> {
        let (_, rest) = self.raw.split_once("://")?;
        let authority = rest.split(['/', '?']).next()?;
        let userinfo = authority.rsplit_once('@')?.0;
        let password = userinfo.split_once(':')?.1;
        (!password.is_empty()).then_some(password)
    }

    /// Replaces the password wherever it occurs in a message (drivers may echo URLs).
    pub fn scrub(&self, message: &str) -> String {
        match self.password() {
            Some(p) if p.len() >= 2 => message.replace(p, "****"),
            _ => message.to_owned(),
        }
    }
}

/// Masks the password in anything that looks like `scheme://user:password@host…`.
/// Text that does not parse is masked after the scheme entirely.
pub fn mask(raw: &str) -> String {
    let Some((scheme, rest)) = raw.split_once("://") else {
        return if raw.contains('@') {
            "<unparseable URL>".to_owned()
        } else {
            raw.to_owned()
        };
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:****@{host}{tail}"),
            None => format!("{scheme}://{userinfo}@{host}{tail}"),
        },
        None => format!("{scheme}://{authority}{tail}"),
    }
}

impl fmt::Display for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&mask(&self.raw))
    }
}

impl fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DatabaseUrl({})", mask(&self.raw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_password_everywhere() {
        let url =
            DatabaseUrl::parse("postgres://app:s3cr%40t@db:5432/app?sslmode=require").unwrap();
        assert_eq!(url.backend(), Backend::Postgres);
        assert_eq!(
            url.to_string(),
            "postgres://app:****@db:5432/app?sslmode=require"
        );
        assert!(!format!("{url:?}").contains("s3cr"));
        assert_eq!(url.password(), Some("s3cr%40t"));
        assert_eq!(url.scrub("failed for s3cr%40t"), "failed for ****");
    }

    #[test]
    fn recognises_backends_and_refuses_others() {
        assert_eq!(
            DatabaseUrl::parse("mongodb+srv://u:p@x/db")
                .unwrap()
                .backend(),
            Backend::Mongo
        );
        assert_eq!(
            DatabaseUrl::parse("postgresql:///test").unwrap().backend(),
            Backend::Postgres
        );
        let err = DatabaseUrl::parse("mysql://root:hunter2@db/x")
            .unwrap_err()
            .to_string();
        assert!(err.contains("mysql://root:****@db/x"), "{err}");
        assert!(!err.contains("hunter2"));
    }

    #[test]
    fn mask_handles_odd_input() {
        assert_eq!(mask("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(mask("postgres://h/db"), "postgres://h/db");
        assert_eq!(mask("u:pw@host"), "<unparseable URL>");
        // an '@' inside the password still masks all of it
        assert_eq!(mask("postgres://u:p@ss@h/db"), "postgres://u:****@h/db");
    }
}
