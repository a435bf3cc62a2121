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

    /// The password, if the URL carries one, in its user information or as a `password=`
    /// query parameter (used to scrub driver messages).
    pub fn password(&self) -> Option<&str> {
        let (_, rest) = self.raw.split_once("://")?;
        let in_userinfo = userinfo_end(rest)
            .and_then(|end| rest[..end].split_once(':'))
            .map(|(_, p)| p)
            .filter(|p| !p.is_empty());
        let mut in_query = query_secrets(&self.raw, &SECRET_KEYS[..1]);
        in_userinfo.or_else(|| in_query.next().map(|r| &self.raw[r]))
    }

    /// Replaces the password wherever it occurs in a message (drivers may echo URLs), as
    /// written and percent-decoded.
    pub fn scrub(&self, message: &str) -> String {
        let Some(p) = self.password().filter(|p| p.len() >= 2) else {
            return message.to_owned();
        };
        let decoded = percent_encoding::percent_decode_str(p).decode_utf8_lossy();
        let message = message.replace(p, "****");
        if decoded.len() >= 2 && decoded != p {
            message.replace(decoded.as_ref(), "****")
        } else {
            message
        }
    }

    /// Why a driver could not read this URL: its reason, scrubbed, and what most often causes
    /// it. A `#`, `/` or `?` written raw in the password ends that part of a URL (the
    /// driver then reads the password as a port: "invalid port number"); PostgreSQL's several
    /// hosts (libpq's failover list) are not taken by outboxctl's drivers.
    pub fn unreadable(&self, said: &str) -> String {
        let said = self.scrub(said);
        match self.likely_cause() {
            Some(cause) => format!("{said}; {cause}"),
            None => said,
        }
    }

    fn likely_cause(&self) -> Option<&'static str> {
        let (_, rest) = self.raw.split_once("://")?;
        let end = userinfo_end(rest);
        let after = &rest[end.map_or(0, |e| e + 1)..];
        let hosts = &after[..after.find(['/', '?', '#']).unwrap_or(after.len())];
        if self.backend == Backend::Postgres && hosts.contains(',') {
            return Some(SEVERAL_HOSTS);
        }
        // `user:password` whose password holds one (an `@` in a query alone is no password)
        let userinfo = rest[..end?].split_once(':');
        userinfo
            .filter(|(user, password)| {
                !user.contains(['#', '/', '?']) && password.contains(['#', '/', '?'])
            })
            .map(|_| RAW_IN_PASSWORD)
    }

    /// Why a PostgreSQL URL cannot be used as written, found without connecting: it does not
    /// parse (with what most often causes that), or parses but not as written
    /// ([`Self::pg_misread`]). What `init` refuses before it writes the URL to a file.
    pub fn pg_refusal(&self) -> Option<String> {
        if self.backend != Backend::Postgres {
            return None;
        }
        match url::Url::parse(&self.raw) {
            Err(e) => Some(self.unreadable(&e.to_string())),
            Ok(_) => self.pg_misread().map(str::to_owned),
        }
    }

    /// A PostgreSQL URL that reads, but not as written: several hosts (libpq's list, which the
    /// driver dials as one name: exit 3, a name that does not resolve), or a password cut
    /// short by a raw `/`, `#` or `?` (its digits read as a port, its user as the host, its rest
    /// as the path, fragment or a query that is no `key=value`). Refused before any connection.
    pub fn pg_misread(&self) -> Option<&'static str> {
        let u = url::Url::parse(&self.raw).ok()?;
        if self.backend != Backend::Postgres {
            return None;
        }
        if u.host_str().is_some_and(|h| h.contains(',')) {
            return Some(SEVERAL_HOSTS);
        }
        let first_pair = u.query().and_then(|q| q.split('&').next()).unwrap_or("=");
        let cut = u.path().contains('@')
            || u.fragment().is_some_and(|f| f.contains('@'))
            || (first_pair.contains('@') && !first_pair.contains('='));
        cut.then_some(RAW_IN_PASSWORD)
    }
}

const SEVERAL_HOSTS: &str =
    "several hosts are not supported: name one host, or the pooler or address in front of them";
const RAW_IN_PASSWORD: &str = "the password holds a raw #, / or ?, which ends that part of a URL: percent-encode it (# as %23, / as %2F, ? as %3F)";

/// Where the user information of what follows `scheme://` ends: the `@` before the host. A
/// password written with a raw `/`, `?` or `@` (a base64 one, say) still ends there: the last
/// `@` before the query, else the last `@` of all. `None` without one.
fn userinfo_end(rest: &str) -> Option<usize> {
    let before_query = &rest[..rest.find(['?', '#']).unwrap_or(rest.len())];
    before_query.rfind('@').or_else(|| rest.rfind('@'))
}

/// Query keys whose values are secrets, lower case: the login password first (libpq and sqlx
/// take one there too), libpq's `sslpassword` and MongoDB's `tlsCertificateKeyFilePassword` (a client
/// key's), and MongoDB's `authMechanismProperties` (an AWS session token).
const SECRET_KEYS: [&str; 4] = [
    "password",
    "sslpassword",
    "tlscertificatekeyfilepassword",
    "authmechanismproperties",
];

/// Where the values of the query parameters named by `keys` (of [`SECRET_KEYS`]) are in `raw`,
/// their keys matched as the drivers read them: percent-decoded, in any case.
fn query_secrets<'a>(
    raw: &'a str,
    keys: &'a [&str],
) -> impl Iterator<Item = std::ops::Range<usize>> + 'a {
    let query = raw.find('?').map_or(raw.len(), |q| q + 1);
    let end = raw[query..].find('#').map_or(raw.len(), |h| query + h);
    let mut at = query;
    raw[query..end].split('&').filter_map(move |pair| {
        let start = at;
        at += pair.len() + 1;
        let (key, value) = pair.split_once('=')?;
        let key = percent_encoding::percent_decode_str(key).decode_utf8_lossy();
        let secret = keys.contains(&key.to_ascii_lowercase().as_str());
        let from = start + pair.len() - value.len();
        secret.then_some(from..from + value.len())
    })
}

/// Where the values of [`SECRET_KEYS`] are in a key=value connection string: libpq's
/// `host=h password = p` (a value runs to a space, `\ ` escaping one) or `Password=p w;` as
/// other drivers write it (with a `;` in the text a value runs to it); keys in any case, a
/// value quoted `'…'` or `"…"` (`\'` inside) taken whole. Read left to right, so the ranges are
/// in order and apart: a key inside a value is part of that value.
fn keyword_secrets(raw: &str) -> Vec<std::ops::Range<usize>> {
    let (lower, bytes) = (raw.to_ascii_lowercase(), raw.as_bytes());
    let semicolons = raw.contains(';');
    let skip_spaces = |mut at: usize| {
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        at
    };
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let word = at == 0 || bytes[at - 1] == b';' || bytes[at - 1].is_ascii_whitespace();
        let key =
            (SECRET_KEYS.iter()).find(|k| word && lower.as_bytes()[at..].starts_with(k.as_bytes()));
        let equals = key.map(|k| skip_spaces(at + k.len()));
        let Some(equals) = equals.filter(|&e| bytes.get(e) == Some(&b'=')) else {
            at += 1;
            continue;
        };
        let value = skip_spaces(equals + 1);
        let end = value_end(bytes, value, semicolons);
        found.push(value..end);
        at = end.max(value + 1);
    }
    found
}

/// Where a key=value string's value that starts at `start` ends ([`keyword_secrets`]).
fn value_end(bytes: &[u8], start: usize, semicolons: bool) -> usize {
    let mut end = start;
    if let Some(&quote @ (b'\'' | b'"')) = bytes.get(start) {
        end += 1;
        while end < bytes.len() && bytes[end] != quote {
            end += if bytes[end] == b'\\' { 2 } else { 1 };
        }
        return (end + 1).min(bytes.len());
    }
    while end < bytes.len() {
        match bytes[end] {
            b';' => break,
            b'\\' => end += 2,
            c if c.is_ascii_whitespace() && !semicolons => break,
            _ => end += 1,
        }
    }
    end.min(bytes.len())
}

/// Masks the password in anything that looks like `scheme://user:password@host…` or carries a
/// `password=` query parameter (more than the password rather than less, when the text is
/// odd). Text that does not parse is masked after the scheme entirely. A NATS URL's user
/// information without a password is a token, masked whole; a webhook's query (and fragment)
/// often carries a token (`?token=`, a signed URL's signature), masked whole too, so webhooks
/// that differ only there are shown alike.
pub fn mask(raw: &str) -> String {
    let mut masked = mask_userinfo(raw);
    let scheme = masked
        .split_once("://")
        .map(|(s, _)| s.to_ascii_lowercase());
    let web = matches!(scheme.as_deref(), Some("http" | "https"));
    if let Some(query) = masked.find(['?', '#']).filter(|_| web) {
        masked.replace_range(query.., "?****");
    }
    let ranges: Vec<_> = query_secrets(&masked, &SECRET_KEYS).collect();
    let mut out = masked.clone();
    for r in ranges.into_iter().rev() {
        out.replace_range(r, "****");
    }
    out
}

fn mask_userinfo(raw: &str) -> String {
    // a URL starts with its scheme: a `://` inside a key=value string's password is not one
    let url = raw.split_once("://").filter(|(scheme, _)| {
        let mut chars = scheme.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
    });
    let Some((scheme, rest)) = url else {
        if raw.contains('@') {
            return "<unparseable URL>".to_owned();
        }
        // a key=value connection string (libpq's `host=h password=p`), which outboxctl
        // refuses, is still said with its password masked
        let mut out = raw.to_owned();
        for r in keyword_secrets(raw).into_iter().rev() {
            out.replace_range(r, "****");
        }
        return out;
    };
    let Some(end) = userinfo_end(rest) else {
        return raw.to_owned();
    };
    let (userinfo, host) = (&rest[..end], &rest[end + 1..]);
    match userinfo.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:****@{host}"),
        None if ["nats", "tls"]
            .iter()
            .any(|s| scheme.eq_ignore_ascii_case(s)) =>
        {
            format!("{scheme}://****@{host}")
        }
        None => format!("{scheme}://{userinfo}@{host}"),
    }
}

/// A text that may carry a secret, as it was given (a URL from a flag, the file or a request,
/// before it is parsed): `Debug` masks it ([`mask`]), so a struct that derives `Debug` never
/// shows the password; [`SecretText::expose`] gives it whole, to parse and connect with.
#[derive(Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(transparent)]
pub struct SecretText(String);

impl SecretText {
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn into_exposed(self) -> String {
        self.0
    }
}

impl From<String> for SecretText {
    fn from(text: String) -> Self {
        Self(text)
    }
}

impl From<&str> for SecretText {
    fn from(text: &str) -> Self {
        Self(text.to_owned())
    }
}

impl fmt::Debug for SecretText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&mask(&self.0), f)
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
    fn says_what_most_often_makes_a_url_unreadable() {
        let cause = |raw: &str| DatabaseUrl::parse(raw).unwrap().likely_cause();
        for raw in [
            "postgres://app:pa#ss@db/app",
            "postgres://app:pa/ss@db:5432/app",
            "mongodb://app:pa?ss@db/app",
        ] {
            let said = cause(raw).unwrap_or_else(|| panic!("{raw}"));
            assert!(said.contains("percent-encode"), "{raw}: {said}");
        }
        let several = cause("postgres://app:pw@db1:5432,db2:5432/app").unwrap();
        assert!(several.starts_with("several hosts"), "{several}");
        for raw in [
            "postgres://app:p%23ss@db/app?sslmode=require",
            "postgres://app:p@ss@db/app",
            "mongodb://db1,db2/app?replicaSet=rs0",
            "postgres://db/app#x",
            "postgres://db/app?user=x@y",
        ] {
            assert_eq!(cause(raw), None, "{raw}");
        }
        // URLs that parse, but not as written: refused before connecting
        let misread = |raw: &str| DatabaseUrl::parse(raw).unwrap().pg_misread();
        assert_eq!(misread("postgres://app@h1,h2/app"), Some(SEVERAL_HOSTS));
        for raw in [
            "postgres://app:1234/abc@db/app",
            "postgres://app:5432#xyz@db/app",
            "postgres://app:99?x@db/app",
        ] {
            assert_eq!(misread(raw), Some(RAW_IN_PASSWORD), "{raw}");
        }
        for raw in [
            "postgres://app:pw@db:5432/app?sslmode=require&application_name=a@b",
            "postgres://db/app?user=x@y",
            "postgres://app:p%2Fw@db/app",
            "mongodb://db1,db2/app?replicaSet=rs0",
        ] {
            assert_eq!(misread(raw), None, "{raw}");
        }
        let url = DatabaseUrl::parse("postgres://app:se#cret@db/app").unwrap();
        let said = url.unreadable("invalid port number: se#cret");
        assert!(
            !said.contains("se#cret") && said.contains("; the password holds"),
            "{said}"
        );
    }

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
        // a key=value connection string, refused, is said without its password
        for (raw, masked) in [
            (
                "host=h user=u password=s3cret dbname=d",
                "host=h user=u password=**** dbname=d",
            ),
            (
                "host=h PassWord = 's3 c\\'ret' port=1",
                "host=h PassWord = **** port=1",
            ),
            (
                "Server=h;Password=s3cret;Database=d",
                "Server=h;Password=****;Database=d",
            ),
            ("sslpassword=k password=p", "sslpassword=**** password=****"),
            (
                "host=h mypassword=x dbname=d",
                "host=h mypassword=x dbname=d",
            ),
            ("password='unclosed", "password=****"),
            // a key inside a quoted value is that value's (ranges overlapped: a panic, or a
            // password's tail shown)
            (
                "host=h password='x password=longvalue'",
                "host=h password=****",
            ),
            (
                "password='a password=b cdef' port=1",
                "password=**** port=1",
            ),
            // a `;` in the text: a value runs to it; a `\ ` and double quotes kept whole
            (
                "Server=h;Password=my secret;Db=d",
                "Server=h;Password=****;Db=d",
            ),
            ("Password=\"a b\";Db=d", "Password=****;Db=d"),
            (
                "host=h password=a\\ b port=1",
                "host=h password=**** port=1",
            ),
            // a `://` in a password does not make the text a URL
            (
                "host=h password=pa://ss port=1",
                "host=h password=**** port=1",
            ),
            ("host=é password=p", "host=é password=****"),
        ] {
            assert_eq!(mask(raw), masked, "{raw}");
        }
        // an '@' inside the password still masks all of it
        assert_eq!(mask("postgres://u:p@ss@h/db"), "postgres://u:****@h/db");
        // so do a raw '/' or '?' in it (a base64 password), and an '@' in the query is not
        // taken for the host's
        assert_eq!(mask("kafka://app:Zp/w123@h:1"), "kafka://app:****@h:1");
        assert_eq!(mask("postgres://u:pa?ss@h/db"), "postgres://u:****@h/db");
        assert_eq!(
            mask("postgres://u:p@h/db?application_name=a@b"),
            "postgres://u:****@h/db?application_name=a@b"
        );
        // with no '@' before the query, the last '@' is taken: more than a password is
        // masked rather than a password with a '?' in it shown
        assert_eq!(mask("nats://h:4222/?x=a@b"), "nats://h:****@b");
        let url = DatabaseUrl::parse("postgres://u:pa/ss@127.0.0.1/test").unwrap();
        assert_eq!(url.password(), Some("pa/ss"));
        assert!(!url.to_string().contains("pa/ss"));
    }

    #[test]
    fn masks_a_password_given_as_a_query_parameter() {
        assert_eq!(
            mask("postgres://app@db/app?password=hunter2"),
            "postgres://app@db/app?password=****"
        );
        assert_eq!(
            mask("postgres://db/app?user=app&password=hu%26nter&sslmode=require#x"),
            "postgres://db/app?user=app&password=****&sslmode=require#x"
        );
        let url = DatabaseUrl::parse("postgres://db/app?user=app&password=s3cr%21t").unwrap();
        assert!(!url.to_string().contains("s3cr"), "{url}");
        assert_eq!(url.password(), Some("s3cr%21t"));
        assert_eq!(
            url.scrub("password s3cr!t refused; s3cr%21t"),
            "password **** refused; ****"
        );
        // a parameter that only ends in "password" is not one
        assert_eq!(mask("nats://h/?xpassword=a"), "nats://h/?xpassword=a");
        // secret keys as the drivers read them: percent-decoded, in any case, and the other
        // secrets a URL may carry
        for (url, shown) in [
            (
                "postgres://db/app?%70assword=s3cret",
                "postgres://db/app?%70assword=****",
            ),
            (
                "postgres://db/app?PASSWORD=s3cret",
                "postgres://db/app?PASSWORD=****",
            ),
            (
                "postgres://db/app?sslpassword=s3cret",
                "postgres://db/app?sslpassword=****",
            ),
            (
                "mongodb://db/?tls=true&tlsCertificateKeyFilePassword=s3cret",
                "mongodb://db/?tls=true&tlsCertificateKeyFilePassword=****",
            ),
            (
                "mongodb://db/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:s3cret",
                "mongodb://db/?authMechanism=MONGODB-AWS&authMechanismProperties=****",
            ),
        ] {
            assert_eq!(mask(url), shown, "{url}");
        }
        let url = DatabaseUrl::parse("postgres://db/app?%70assword=s3cret").unwrap();
        assert_eq!(url.password(), Some("s3cret"));
        // the login password, whichever secret comes first
        let url = DatabaseUrl::parse("postgres://db/app?sslpassword=keypw&password=dbpw").unwrap();
        assert_eq!(url.password(), Some("dbpw"));
    }

    #[test]
    fn masks_a_nats_token_and_a_webhook_query() {
        assert_eq!(mask("nats://s3cr3tT0k@h:4222"), "nats://****@h:4222");
        assert_eq!(mask("tls://s3cr3tT0k@h:4222"), "tls://****@h:4222");
        assert_eq!(mask("nats://u:pw@h:4222"), "nats://u:****@h:4222");
        // a user name alone is no secret elsewhere
        assert_eq!(mask("amqp://guest@h:5672/%2f"), "amqp://guest@h:5672/%2f");
        assert_eq!(
            mask("https://hooks.example.com/in?token=s3cr3t&x=1#frag"),
            "https://hooks.example.com/in?****"
        );
        assert_eq!(
            mask("http://u:pw@h:8080/hook#sig=s3cr3t"),
            "http://u:****@h:8080/hook?****"
        );
        assert_eq!(mask("https://h/hook"), "https://h/hook");
        // schemes are read in any case
        assert_eq!(mask("NATS://s3cr3tT0k@h:4222"), "NATS://****@h:4222");
        assert_eq!(mask("HTTPS://h/in?token=s3cr3t"), "HTTPS://h/in?****");
    }
}
