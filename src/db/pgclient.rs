//! The relay's PostgreSQL connection on its hot path, on tokio-postgres: it sends an unnamed
//! statement with its typed values in one message batch (Parse, Bind, Describe, Execute, Sync:
//! one round trip, where sqlx 0.8 waits for a Describe first), and pipelines what one
//! transaction sends (`BEGIN` with the claim, the marks with `COMMIT`: each batch one round
//! trip). Pooler-safe by the rules of [`super::pg`]: nothing named is left on a server
//! connection (unless `prepared_statements`), a statement outside a transaction is one
//! Sync-terminated batch, nothing sets session state. The URL means what it means to sqlx
//! ([`super::pg_options`]: its environment fallbacks, `sslmode`, `sslrootcert`, `~/.pgpass`),
//! with TLS through rustls. Other commands keep sqlx; both drivers' errors map to one
//! [`Fault`].

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures_util::future::{BoxFuture, join_all};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, SignatureScheme};
use sqlx::postgres::PgSslMode;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Row, Statement};
use uuid::Uuid;

use super::DbError;
use super::fault::Fault;
use crate::dburl::DatabaseUrl;

/// A value bound to a statement, with its PostgreSQL type (sent with it: no Describe needed).
#[derive(Debug, Clone)]
pub enum Value {
    Text(String),
    Int8(i64),
    Int4(i32),
    Time(DateTime<Utc>),
    Uuid(Option<Uuid>),
    Uuids(Vec<Uuid>),
    OptUuids(Vec<Option<Uuid>>),
    Texts(Vec<Option<String>>),
    OptText(Option<String>),
    Float8(Option<f64>),
}

impl Value {
    fn typed(&self) -> (&(dyn ToSql + Sync), Type) {
        match self {
            Value::Text(v) => (v, Type::TEXT),
            Value::Int8(v) => (v, Type::INT8),
            Value::Int4(v) => (v, Type::INT4),
            Value::Time(v) => (v, Type::TIMESTAMPTZ),
            Value::Uuid(v) => (v, Type::UUID),
            Value::Uuids(v) => (v, Type::UUID_ARRAY),
            Value::OptUuids(v) => (v, Type::UUID_ARRAY),
            Value::Texts(v) => (v, Type::TEXT_ARRAY),
            Value::OptText(v) => (v, Type::TEXT),
            Value::Float8(v) => (v, Type::FLOAT8),
        }
    }

    /// Binds it to an sqlx statement (the same values through the other driver).
    pub fn bind_to<'q>(&self, q: super::pg::Query<'q>) -> super::pg::Query<'q> {
        match self.clone() {
            Value::Text(v) => q.bind(v),
            Value::Int8(v) => q.bind(v),
            Value::Int4(v) => q.bind(v),
            Value::Time(v) => q.bind(v),
            Value::Uuid(v) => q.bind(v),
            Value::Uuids(v) => q.bind(v),
            Value::OptUuids(v) => q.bind(v),
            Value::Texts(v) => q.bind(v),
            Value::OptText(v) => q.bind(v),
            Value::Float8(v) => q.bind(v),
        }
    }
}

/// One statement and its values; `rows` when it returns rows.
#[derive(Debug, Clone)]
pub struct Stmt {
    pub sql: Arc<str>,
    pub values: Vec<Value>,
    pub rows: bool,
}

/// What a statement gave back.
#[derive(Debug)]
pub enum Reply {
    Rows(Vec<Row>),
    Count(u64),
}

/// One connection (its driver task runs beside it until the connection closes).
pub struct PgClient {
    client: tokio_postgres::Client,
    /// The TLS its connection was made with, for a cancel request's own connection.
    tls: tokio_postgres_rustls::MakeRustlsConnect,
    /// With `prepared_statements`: each statement prepared once, named, and reused.
    named: Option<HashMap<Arc<str>, Statement>>,
}

impl PgClient {
    /// Connects within `timeout`; `named`: prepare each statement once (`prepared_statements`).
    pub async fn connect(
        url: &DatabaseUrl,
        timeout: Duration,
        named: bool,
    ) -> Result<PgClient, DbError> {
        let (config, tls) = client_config(url)?;
        let connecting = config.connect(tls.clone());
        let (client, connection) = match tokio::time::timeout(timeout, connecting).await {
            Err(_) => {
                return Err(DbError::Connect {
                    target: url.to_string(),
                    reason: format!(
                        "no answer within {} (raise --connect-timeout if the server is slow)",
                        crate::duration::Dur(timeout)
                    ),
                });
            }
            Ok(Err(e)) => {
                let reason = url.scrub(&message(&e));
                return Err(match Fault::of_tokio_postgres(&e) {
                    Fault::Statement
                    | Fault::Refused
                    | Fault::Definition
                    | Fault::LockBusy
                    | Fault::Canceled => DbError::Unusable {
                        target: url.to_string(),
                        reason,
                    },
                    _ => DbError::Connect {
                        target: url.to_string(),
                        reason,
                    },
                });
            }
            Ok(Ok(pair)) => pair,
        };
        tokio::spawn(async move {
            // ends when the connection closes; the client's next request then says so
            let _ = connection.await;
        });
        Ok(PgClient {
            client,
            tls,
            named: named.then(HashMap::new),
        })
    }

    /// Asks the server to cancel what this connection runs: the protocol's cancel request, on
    /// a connection of its own, which names this session by its secret key, so that a pooler
    /// passes it to the server connection this client holds (or drops it), and never cancels
    /// another client's statement, as `pg_cancel_backend` of a guessed pid could.
    pub async fn cancel(&self) -> Result<(), tokio_postgres::Error> {
        let token = self.client.cancel_token();
        token.cancel_query(self.tls.clone()).await
    }

    pub fn is_closed(&self) -> bool {
        self.client.is_closed()
    }

    /// One simple-protocol statement without values (`BEGIN`, `COMMIT`, `ROLLBACK`).
    pub async fn simple(&self, sql: &str) -> Result<(), tokio_postgres::Error> {
        self.client.batch_execute(sql).await
    }

    /// Prepares (once) what `named` statements the steps need.
    async fn prepare(&mut self, steps: &[&Stmt]) -> Result<(), tokio_postgres::Error> {
        let Some(named) = &mut self.named else {
            return Ok(());
        };
        for s in steps {
            if !named.contains_key(&s.sql) {
                let types: Vec<Type> = s.values.iter().map(|v| v.typed().1).collect();
                let prepared = self.client.prepare_typed(&s.sql, &types).await?;
                named.insert(s.sql.clone(), prepared);
            }
        }
        Ok(())
    }

    /// Runs one statement: one round trip.
    pub async fn run(&mut self, stmt: &Stmt) -> Result<Reply, Arc<tokio_postgres::Error>> {
        let mut out = self.pipeline(None, &[stmt], None).await;
        out.steps.pop().expect("one step")
    }

    /// Sends `begin` (a simple statement), the steps and `end` one after another without
    /// waiting between them: one round trip for all (named statements not yet prepared cost one
    /// more, once). Each result comes back in order; after a failed statement the server runs
    /// the rest in an aborted transaction, so the first error is the one that matters.
    pub async fn pipeline(
        &mut self,
        begin: Option<&str>,
        steps: &[&Stmt],
        end: Option<&str>,
    ) -> Pipelined {
        if let Err(e) = self.prepare(steps).await {
            // nothing was sent: every part says why
            let e = Arc::new(e);
            return Pipelined {
                begin: begin.map(|_| Err(e.clone())),
                steps: steps.iter().map(|_| Err(e.clone())).collect(),
                end: end.map(|_| Err(e.clone())),
            };
        }
        let client = &self.client;
        let named = self.named.as_ref();
        type Fut<'f> = BoxFuture<'f, Result<Option<Reply>, tokio_postgres::Error>>;
        let mut futures: Vec<Fut<'_>> = Vec::with_capacity(steps.len() + 2);
        if let Some(sql) = begin {
            futures.push(Box::pin(async move {
                client.batch_execute(sql).await.map(|()| None)
            }));
        }
        for &s in steps {
            let prepared = named.and_then(|n| n.get(&s.sql));
            futures.push(Box::pin(async move {
                let reply = match prepared {
                    Some(p) => {
                        let values: Vec<&(dyn ToSql + Sync)> =
                            s.values.iter().map(|v| v.typed().0).collect();
                        if s.rows {
                            Reply::Rows(client.query(p, &values).await?)
                        } else {
                            Reply::Count(client.execute(p, &values).await?)
                        }
                    }
                    None => {
                        let values: Vec<(&(dyn ToSql + Sync), Type)> =
                            s.values.iter().map(Value::typed).collect();
                        if s.rows {
                            Reply::Rows(client.query_typed(&s.sql, &values).await?)
                        } else {
                            Reply::Count(client.execute_typed(&s.sql, &values).await?)
                        }
                    }
                };
                Ok(Some(reply))
            }));
        }
        if let Some(sql) = end {
            futures.push(Box::pin(async move {
                client.batch_execute(sql).await.map(|()| None)
            }));
        }
        // join_all polls each future once in order before any waits: each sends its messages
        // then, so they leave in order, back to back
        let mut results = join_all(futures).await.into_iter();
        let begin = begin.map(|_| results.next().expect("begin").map(drop).map_err(Arc::new));
        let steps: Vec<_> = steps
            .iter()
            .map(|_| {
                results
                    .next()
                    .expect("step")
                    .map(|r| r.expect("a statement's reply"))
                    .map_err(Arc::new)
            })
            .collect();
        let end = end.map(|_| results.next().expect("end").map(drop).map_err(Arc::new));
        Pipelined { begin, steps, end }
    }
}

/// What a pipeline gave back, in the order it was sent.
pub struct Pipelined {
    pub begin: Option<Result<(), Arc<tokio_postgres::Error>>>,
    pub steps: Vec<Result<Reply, Arc<tokio_postgres::Error>>>,
    pub end: Option<Result<(), Arc<tokio_postgres::Error>>>,
}

/// The message of a tokio-postgres error: the server's own text (with its hint), or the
/// driver's, one line, with what to check.
pub fn message(e: &tokio_postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        let text = db.message();
        if text.contains(super::pg::STATEMENT_POOLING_SAYS) {
            return super::pg::STATEMENT_POOLING.to_owned();
        }
        let hint = match Fault::of_sqlstate(db.code().code()) {
            Fault::Auth if db.code().code() == super::sqlstate::INVALID_CATALOG_NAME => {
                "; check the database name in the URL"
            }
            Fault::Auth => "; check the user and password in the database URL",
            _ if db.code().code() == super::sqlstate::INSUFFICIENT_PRIVILEGE => {
                &super::privilege_hint(text)
            }
            _ => "",
        };
        return format!("{text}{hint}");
    }
    // the driver's words, then each cause it does not already say, then what to check
    let mut text = e.to_string();
    let mut hint = "";
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::ConnectionRefused {
                hint = "; is PostgreSQL running and listening on that host and port?";
            }
        }
        let cause = s.to_string();
        if !text.contains(&cause) {
            text = format!("{text}: {cause}");
        }
        source = s.source();
    }
    super::first_line(&format!("{text}{hint}"))
}

/// The client certificate and its key (`sslcert` and `sslkey`, PEM files), which a server
/// that authenticates by certificate asks for.
struct ClientCert {
    cert: String,
    key: String,
}

impl ClientCert {
    /// From the URL (`sslcert`/`ssl-cert`, `sslkey`/`ssl-key`) or `PGSSLCERT` and `PGSSLKEY`,
    /// as sqlx reads them for the other connections; one without the other is refused.
    fn from_query(query: &HashMap<String, String>) -> Result<Option<Self>, DbError> {
        let read = |names: [&str; 2], env: &str| {
            names
                .iter()
                .find_map(|n| query.get(*n).filter(|v| !v.is_empty()).cloned())
                .or_else(|| std::env::var(env).ok().filter(|v| !v.is_empty()))
        };
        match (
            read(["sslcert", "ssl-cert"], "PGSSLCERT"),
            read(["sslkey", "ssl-key"], "PGSSLKEY"),
        ) {
            (None, None) => Ok(None),
            (Some(cert), Some(key)) => Ok(Some(Self { cert, key })),
            (Some(_), None) => Err(DbError::Tls(
                "sslcert is given without sslkey: give the client certificate's key with sslkey=/path/client.key (or PGSSLKEY)".into(),
            )),
            (None, Some(_)) => Err(DbError::Tls(
                "sslkey is given without sslcert: give the client certificate with sslcert=/path/client.crt (or PGSSLCERT)".into(),
            )),
        }
    }

    /// Finishes a TLS configuration with this certificate.
    fn offer(
        &self,
        builder: rustls::ConfigBuilder<rustls::ClientConfig, rustls::client::WantsClientCert>,
    ) -> Result<rustls::ClientConfig, DbError> {
        use rustls::pki_types::PrivateKeyDer;
        use rustls::pki_types::pem::PemObject;
        let (cert, key) = (&self.cert, &self.key);
        let chain = CertificateDer::pem_file_iter(cert)
            .and_then(|it| it.collect::<Result<Vec<_>, _>>())
            .map_err(|e| DbError::Tls(format!("cannot read sslcert {cert}: {e}")))?;
        let private = PrivateKeyDer::from_pem_file(key)
            .map_err(|e| DbError::Tls(format!("cannot read sslkey {key}: {e}")))?;
        builder.with_client_auth_cert(chain, private).map_err(|e| {
            DbError::Tls(format!(
                "sslcert {cert} and sslkey {key} cannot be used together: {e}"
            ))
        })
    }
}

/// TLS as `sslmode` asks: `disable` none; `allow`, `prefer` and `require` encrypt without
/// checking the certificate (libpq's meaning; [`super::pg_options`] makes `require` with a
/// root certificate `verify-ca`, as libpq does); `verify-ca` checks the chain against
/// `sslrootcert` (which it needs), `verify-full` the host name too (against the web's roots
/// when no `sslrootcert` is given). A client certificate is offered when one is given.
fn tls_for(
    mode: PgSslMode,
    root_cert: Option<&str>,
    client_cert: Option<&ClientCert>,
) -> Result<(tokio_postgres::config::SslMode, rustls::ClientConfig), DbError> {
    use tokio_postgres::config::SslMode;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| DbError::Tls(format!("TLS set-up: {e}")))?;
    let roots = || -> Result<rustls::RootCertStore, DbError> {
        let mut roots = rustls::RootCertStore::empty();
        match root_cert {
            Some(path) => {
                use rustls::pki_types::pem::PemObject;
                let certs = CertificateDer::pem_file_iter(path)
                    .and_then(|it| it.collect::<Result<Vec<_>, _>>())
                    .map_err(|e| DbError::Tls(format!("cannot read sslrootcert {path}: {e}")))?;
                for c in certs {
                    roots.add(c).map_err(|e| {
                        DbError::Tls(format!("sslrootcert {path} holds a bad certificate: {e}"))
                    })?;
                }
            }
            None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
        }
        Ok(roots)
    };
    let finish =
        |b: rustls::ConfigBuilder<rustls::ClientConfig, rustls::client::WantsClientCert>| {
            match client_cert {
                Some(c) => c.offer(b),
                None => Ok(b.with_no_client_auth()),
            }
        };
    let verified = |chain_only: bool| -> Result<rustls::ClientConfig, DbError> {
        let webpki = rustls::client::WebPkiServerVerifier::builder_with_provider(
            Arc::new(roots()?),
            provider.clone(),
        )
        .build()
        .map_err(|e| DbError::Tls(format!("TLS set-up: {e}")))?;
        let verifier: Arc<dyn ServerCertVerifier> = if chain_only {
            Arc::new(ChainOnly(webpki))
        } else {
            webpki
        };
        finish(
            builder
                .clone()
                .dangerous()
                .with_custom_certificate_verifier(verifier),
        )
    };
    let unverified_builder = || {
        builder
            .clone()
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Unverified(provider.clone())))
    };
    let unverified = || finish(unverified_builder());
    Ok(match mode {
        // no TLS: nothing to offer a certificate on (libpq ignores sslcert there too)
        PgSslMode::Disable => (SslMode::Disable, unverified_builder().with_no_client_auth()),
        PgSslMode::Allow | PgSslMode::Prefer => (SslMode::Prefer, unverified()?),
        PgSslMode::Require => (SslMode::Require, unverified()?),
        PgSslMode::VerifyCa => (SslMode::Require, verified(true)?),
        PgSslMode::VerifyFull => (SslMode::Require, verified(false)?),
    })
}

/// How long the relay's connection may be idle before TCP asks the server whether it is there.
pub const KEEPALIVE_IDLE: Duration = Duration::from_secs(30);

/// The connection settings for a URL, as sqlx resolves them, and the TLS connector.
fn client_config(
    url: &DatabaseUrl,
) -> Result<
    (
        tokio_postgres::Config,
        tokio_postgres_rustls::MakeRustlsConnect,
    ),
    DbError,
> {
    let o = super::pg_options(url)?;
    let mut c = tokio_postgres::Config::new();
    match o.get_socket() {
        Some(dir) => c.host_path(dir),
        None => c.host(o.get_host()),
    };
    c.port(o.get_port()).user(o.get_username());
    // a server gone without a word (a network partition, a failover that drops packets) is
    // noticed within about a minute, not after the kernel's two hours of keepalive idling:
    // nothing else bounds a call on this connection from the client's side
    c.keepalives(true)
        .keepalives_idle(KEEPALIVE_IDLE)
        .keepalives_interval(Duration::from_secs(10))
        .keepalives_retries(3)
        .tcp_user_timeout(Duration::from_secs(60));
    if let Some(db) = o.get_database() {
        c.dbname(db);
    }
    if let Some(name) = o.get_application_name() {
        c.application_name(name);
    }
    if let Some(options) = o.get_options() {
        c.options(options);
    }
    let query = url_query(url.expose());
    let password = url_password(url.expose())
        .or_else(|| query.get("password").cloned())
        .or_else(|| std::env::var("PGPASSWORD").ok())
        .or_else(|| {
            pgpass(
                o.get_host(),
                o.get_port(),
                o.get_database().unwrap_or(o.get_username()),
                o.get_username(),
            )
        });
    if let Some(p) = password {
        c.password(p);
    }
    let root_cert = query
        .get("sslrootcert")
        .or_else(|| query.get("ssl-root-cert"))
        .cloned()
        .or_else(|| std::env::var("PGSSLROOTCERT").ok());
    let client_cert = ClientCert::from_query(&query)?;
    let (mode, tls) = tls_for(o.get_ssl_mode(), root_cert.as_deref(), client_cert.as_ref())?;
    c.ssl_mode(mode);
    Ok((c, tokio_postgres_rustls::MakeRustlsConnect::new(tls)))
}

/// The URL's password, percent-decoded.
fn url_password(raw: &str) -> Option<String> {
    let u = url::Url::parse(raw).ok()?;
    let p = u.password()?;
    Some(
        percent_encoding::percent_decode_str(p)
            .decode_utf8_lossy()
            .into_owned(),
    )
}

fn url_query(raw: &str) -> HashMap<String, String> {
    url::Url::parse(raw)
        .map(|u| u.query_pairs().into_owned().collect())
        .unwrap_or_default()
}

/// The password `~/.pgpass` (or `PGPASSFILE`) gives for this host, port, database and user.
fn pgpass(host: &str, port: u16, db: &str, user: &str) -> Option<String> {
    let path = match std::env::var_os("PGPASSFILE") {
        Some(p) => std::path::PathBuf::from(p),
        None => std::path::PathBuf::from(std::env::var_os("HOME")?).join(".pgpass"),
    };
    let text = std::fs::read_to_string(path).ok()?;
    pgpass_lookup(&text, host, &port.to_string(), db, user)
}

/// libpq's `.pgpass` rules: `host:port:db:user:password` lines, `*` matches anything, `\:`
/// and `\\` escape, the first match wins.
fn pgpass_lookup(text: &str, host: &str, port: &str, db: &str, user: &str) -> Option<String> {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .find_map(|line| {
            let mut fields = Vec::with_capacity(5);
            let mut field = String::new();
            let mut chars = line.chars();
            while let Some(ch) = chars.next() {
                match ch {
                    '\\' => field.extend(chars.next()),
                    ':' if fields.len() < 4 => fields.push(std::mem::take(&mut field)),
                    _ => field.push(ch),
                }
            }
            fields.push(field);
            let [h, p, d, u, password] = fields.try_into().ok()?;
            let ok = |pattern: &str, value: &str| pattern == "*" || pattern == value;
            (ok(&h, host) && ok(&p, port) && ok(&d, db) && ok(&u, user)).then_some(password)
        })
}

/// `allow`, `prefer`, `require`: encrypted, the certificate not checked (as libpq does);
/// the handshake's signatures still are.
#[derive(Debug)]
struct Unverified(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain must lead to a trusted root; the host name is not checked.
#[derive(Debug)]
struct ChainOnly(Arc<rustls::client::WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgpass_follows_libpq() {
        let text =
            "# comment\nother:5432:*:app:nope\ndb\\:x:*:app:app:s3cr\\:t\n*:5432:*:*:fallback\n";
        assert_eq!(
            pgpass_lookup(text, "db:x", "5432", "app", "app").as_deref(),
            Some("s3cr:t")
        );
        assert_eq!(
            pgpass_lookup(text, "db", "5432", "app", "app").as_deref(),
            Some("fallback")
        );
        assert_eq!(pgpass_lookup(text, "db", "6432", "app", "app"), None);
    }

    #[test]
    fn url_passwords_are_percent_decoded() {
        assert_eq!(
            url_password("postgres://app:s3cr%40t@db/app").as_deref(),
            Some("s3cr@t")
        );
        assert_eq!(url_password("postgres://app@db/app"), None);
    }

    /// The relay's connection notices a server gone silent within about a minute.
    #[test]
    fn a_silent_server_is_noticed_within_a_minute() {
        let url = DatabaseUrl::parse("postgres://app@db/app").unwrap();
        let (c, _) = client_config(&url).unwrap();
        assert!(c.get_keepalives());
        assert_eq!(c.get_keepalives_idle(), KEEPALIVE_IDLE);
        assert_eq!(c.get_tcp_user_timeout(), Some(&Duration::from_secs(60)));
    }
}
